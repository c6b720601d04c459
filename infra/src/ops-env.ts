// Environment variable names of the ops functions, one to one with their config.rs
// (test/env.test.ts reads those files).

/** functions/tool-error-digest/src/config.rs. */
export const DIGEST_ENV = {
  /** Audit log groups the Logs Insights queries run over, comma-separated. */
  logGroups: 'DIGEST_LOG_GROUPS',
  /** Recipients, comma-separated. */
  recipients: 'DIGEST_RECIPIENTS',
  /** From address (the SES identity). */
  sender: 'DIGEST_SENDER',
  /** Link to the deployment dashboard, shown in the mail. */
  dashboardUrl: 'DIGEST_DASHBOARD_URL',
  /** `true`/`false`: mail a short "all clear" for a week without failures. */
  sendAllClear: 'DIGEST_SEND_ALL_CLEAR',
  /** Before every subject (the function adds a space). */
  subjectPrefix: 'DIGEST_SUBJECT_PREFIX',
  /** How long one Logs Insights query may run, seconds. */
  queryTimeoutSecs: 'DIGEST_QUERY_TIMEOUT_SECS',
  /** Timeout of one AWS API call, retries included, seconds. */
  apiTimeoutSecs: 'DIGEST_API_TIMEOUT_SECS',
  logFormat: 'DIGEST_LOG_FORMAT',
} as const;

/** functions/quota-alarm/src/config.rs. */
export const QUOTA_ENV = {
  /** Log groups whose quota fields give the utilisation, comma-separated: the audit log groups
   *  and quota-alarm's own (its `quota_probe` lines). */
  logGroups: 'QUOTA_LOG_GROUPS',
  /** Namespace of the EMF quota metrics (the alarms watch the same one). */
  emfNamespace: 'QUOTA_EMF_NAMESPACE',
  /** How long one Logs Insights query may run, seconds. */
  queryTimeoutSecs: 'QUOTA_QUERY_TIMEOUT_SECS',
  /** The deployment secret (name or ARN, as mcp-server's MCP_SECRET_ID): credentials for the quota probe. */
  secretId: 'QUOTA_SECRET_ID',
  logFormat: 'QUOTA_LOG_FORMAT',
} as const;
