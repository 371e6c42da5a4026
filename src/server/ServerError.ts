import { SwitchboardError } from '../errors/SwitchboardError.js';

/** Codes of {@link ServerError}, each with the HTTP status it is answered with. */
export const SERVER_ERROR_STATUS = {
  server_config: 500,
  bad_request: 400,
  unauthorized: 401,
  not_found: 404,
} as const;

/** Codes of {@link ServerError}. */
export type ServerErrorCode = keyof typeof SERVER_ERROR_STATUS;

/**
 * The workbench server refused a request or its own configuration: a body that does not match its
 * schema (`bad_request`), a missing or wrong token (`unauthorized`), an unknown route, graph or
 * scenario (`not_found`), or a start on a public host without a token (`server_config`).
 */
export class ServerError extends SwitchboardError {
  override readonly name = 'ServerError';
  override readonly code: ServerErrorCode;

  constructor(message: string, options: { code: ServerErrorCode; cause?: unknown }) {
    super(message, { code: options.code, fault: 'user', ...(options.cause === undefined ? {} : { cause: options.cause }) });
    this.code = options.code;
  }

  /** The HTTP status this error is answered with. */
  get status(): number {
    return SERVER_ERROR_STATUS[this.code];
  }
}
