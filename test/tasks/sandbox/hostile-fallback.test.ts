/** The hostile suite (hostile-suite.ts) under the fallback isolation (no bubblewrap). */
import { hostileSuite } from './hostile-suite';

hostileSuite('fallback');
