// The EMF names on mcp-server's audit lines (shared/audit/src/emf.rs and fields.rs), for the
// dashboard's widgets; test/dashboard.test.ts checks them against the Rust constants.

/** EMF metric and dimension names. */
export const EMF = {
  calls: 'calls',
  errors: 'errors',
  durationMs: 'duration_ms',
  spend: 'spend',
  connector: 'connector',
  tool: 'tool',
} as const;
