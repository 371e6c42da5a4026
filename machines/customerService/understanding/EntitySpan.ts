/** Where an entity was found in a message: its normalized value and the characters it covers. */
export interface EntitySpan {
  kind: 'orderId' | 'period' | 'faultCode';
  /** `SO20261002`, `2026-08`, `E02`. */
  value: string;
  start: number;
  end: number;
}
