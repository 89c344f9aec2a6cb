// The OpenTelemetry attribute names the traces use. The GenAI ones are copied (as the
// @opentelemetry/semantic-conventions README asks of instrumentation, since the incubating names may
// change in a minor version) from the semantic conventions pinned below; `evochamber.*` are our own.

/** The semantic conventions version the span names and attributes follow (GenAI: development status). */
export const SEMCONV_VERSION = '1.37.0';
/** Its schema URL, set on the tracer. */
export const SEMCONV_SCHEMA_URL = `https://opentelemetry.io/schemas/${SEMCONV_VERSION}`;

export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
export const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const ATTR_GEN_AI_REQUEST_MAX_TOKENS = 'gen_ai.request.max_tokens';
export const ATTR_GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const ATTR_GEN_AI_AGENT_ID = 'gen_ai.agent.id';
export const ATTR_ERROR_TYPE = 'error.type';
/** `gen_ai.operation.name` of a chat completion. */
export const GEN_AI_OPERATION_CHAT = 'chat';

/** Our own attributes. */
export const ATTR_RUN_ID = 'evochamber.run.id';
export const ATTR_RUN_DIR = 'evochamber.run.dir';
export const ATTR_SCENARIO = 'evochamber.scenario';
export const ATTR_VARIANT = 'evochamber.variant';
export const ATTR_SEED = 'evochamber.seed';
export const ATTR_TASK_ID = 'evochamber.task.id';
export const ATTR_NICHE = 'evochamber.niche';
export const ATTR_STAGE = 'evochamber.stage';
export const ATTR_STRUCTURE = 'evochamber.structure';
export const ATTR_ROUND = 'evochamber.round';
export const ATTR_VIRTUAL_TIME = 'evochamber.virtual_time';
