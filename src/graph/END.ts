/** The id that ends a graph when used as an edge, transition or route target. */
export const END = '__end__';

/** The type of {@link END}. */
export type End = typeof END;
