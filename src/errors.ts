export type BrainErrorCode =
  | 'INVALID_INPUT'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'UPSTREAM_FAILED'
  | 'SCHEMA_TOO_NEW'
  | 'NOT_A_BRAIN'
  | 'STORAGE_FAILED';

/** The one error type the brain throws. `code` is stable; `message` is for people. */
export class BrainError extends Error {
  readonly code: BrainErrorCode;

  constructor(code: BrainErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BrainError';
    this.code = code;
  }
}

export function isBrainError(err: unknown): err is BrainError {
  return err instanceof BrainError;
}

/** Usage errors are the caller's to fix; everything else is a runtime failure. */
export function isUsageError(err: unknown): boolean {
  return isBrainError(err) && (err.code === 'INVALID_INPUT' || err.code === 'NOT_FOUND');
}
