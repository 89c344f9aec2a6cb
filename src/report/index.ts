// The report module's public surface: write a report, or read a run's events and report data.
export { writeReport, defaultReportDir, type ReportOptions, type ReportResult } from './write-report';
export { buildReportData } from './build-report-data';
export { openRunDirectory, type RunDirectory } from './read-events';
export { reportDataSchema, REPORT_DATA_SCHEMA_VERSION, type ReportData } from './report-data';
export { ablationFileSchema, ablationReportDataSchema, isAblationDir, ABLATION_FILE, type AblationReportData } from './ablation-report';
export { RUN_SECTIONS } from './run-report';
export { ABLATION_SECTIONS } from './ablation-report';
export { exportTables, type ExportResult } from './export/export-run';
export { EXPORT_TABLES, type TableSpec, type ColumnSpec } from './export/export-tables';
export { EXPORT_FORMATS, type ExportFormat } from './export/write-table';
