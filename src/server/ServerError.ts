import { SwitchboardError } from '../errors/SwitchboardError.js';

/** Codes of {@link ServerError}, each with the HTTP status it is answered with. */
export const SERVER_ERROR_STATUS = {
  server_config: 500,
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  unsupported_media_type: 415,
  misdirected_request: 421,
} as const;

/** Codes of {@link ServerError}. */
export type ServerErrorCode = keyof typeof SERVER_ERROR_STATUS;

/**
 * The workbench server refused a request or its own configuration: a body or URL that does not
 * parse (`bad_request`), a missing or wrong token (`unauthorized`), a state-changing request from
 * another origin or with a content type a plain form could send (`forbidden`), a body type it does
 * not read (`unsupported_media_type`), a `Host` it does not answer to (`misdirected_request`), an
 * unknown route, graph or scenario (`not_found`), or a start on a public host without a token
 * (`server_config`).
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
