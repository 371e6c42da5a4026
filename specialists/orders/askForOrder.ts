/** The text that asks for a missing order number. */
export const ASK_FOR_ORDER =
  'Please send me your order number (it starts with SO followed by 8 digits, e.g. SO20261001) so I can look the order up and estimate the refund.';
