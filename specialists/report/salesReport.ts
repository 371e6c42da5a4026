import { z } from 'zod';

/** The name of the MCP tool the sales report server exposes. */
export const SALES_REPORT_TOOL = 'query_sales_report';

/** A report period, `YYYY-MM`. */
export const SalesPeriod = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'a period is YYYY-MM, e.g. 2026-09');

/** The monthly sales figures the report service holds. */
export const SALES: ReadonlyArray<{ period: string; revenue: number; orders: number }> = [
  { period: '2026-07', revenue: 1_052_000, orders: 3_610 },
  { period: '2026-08', revenue: 1_140_000, orders: 3_905 },
  { period: '2026-09', revenue: 1_286_000, orders: 4_268 },
];

/** What `query_sales_report` answers: the month's figures with growth against the previous month, or the periods it has. */
export const SalesReportResult = z.discriminatedUnion('found', [
  z.object({
    found: z.literal(true),
    period: SalesPeriod,
    revenue: z.number(),
    orders: z.number().int(),
    /** The previous month, or null when the report has no earlier month. */
    previousPeriod: SalesPeriod.nullable(),
    /** Revenue growth against the previous month in percent, rounded to 2 decimals; null without a previous month. */
    revenueGrowthPercent: z.number().nullable(),
    /** Order growth against the previous month in percent, rounded to 2 decimals; null without a previous month. */
    ordersGrowthPercent: z.number().nullable(),
  }),
  z.object({ found: z.literal(false), period: z.string(), availablePeriods: z.array(SalesPeriod) }),
]);
/** What `query_sales_report` answers (see {@link SalesReportResult}). */
export type SalesReportResult = z.infer<typeof SalesReportResult>;

const growth = (now: number, before: number) => Math.round(((now - before) / before) * 10_000) / 100;

/** `1286000` → `'1,286,000'`. */
export const formatCount = (n: number): string => n.toLocaleString('en-US');

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** `'2026-09'` → `'September 2026'`. */
export function periodName(period: string): string {
  const [year, month] = period.split('-');
  return `${MONTHS[Number(month) - 1] ?? month} ${year}`;
}

/**
 * The sales report of one month: revenue, orders and growth against the previous month (2026-09:
 * revenue 1,286,000, orders 4,268, revenue growth 12.81%), or, for a month it does not hold, the
 * periods it has.
 *
 * @example
 * salesReport('2026-09'); // { found: true, period: '2026-09', revenue: 1286000, orders: 4268, previousPeriod: '2026-08', revenueGrowthPercent: 12.81, … }
 */
export function salesReport(period: string): SalesReportResult {
  const index = SALES.findIndex((s) => s.period === period);
  const month = SALES[index];
  if (month === undefined) return { found: false, period, availablePeriods: SALES.map((s) => s.period) };
  const previous = index > 0 ? SALES[index - 1] : undefined;
  return {
    found: true,
    period,
    revenue: month.revenue,
    orders: month.orders,
    previousPeriod: previous?.period ?? null,
    revenueGrowthPercent: previous ? growth(month.revenue, previous.revenue) : null,
    ordersGrowthPercent: previous ? growth(month.orders, previous.orders) : null,
  };
}

/** The report as one English paragraph, e.g. "Sales report for September 2026 (2026-09): revenue 1,286,000 …". */
export function describeSalesReport(result: SalesReportResult): string {
  if (!result.found) {
    return `There is no sales report for ${result.period}. Available periods: ${result.availablePeriods.join(', ')}.`;
  }
  const head = `Sales report for ${periodName(result.period)} (${result.period}): revenue ${formatCount(result.revenue)}, order volume ${formatCount(result.orders)} orders.`;
  if (result.previousPeriod === null || result.revenueGrowthPercent === null || result.ordersGrowthPercent === null) {
    return `${head} There is no earlier month to compare with.`;
  }
  const change = (n: number) => (n >= 0 ? `grew ${n.toFixed(2)}%` : `fell ${(-n).toFixed(2)}%`);
  return `${head} Against ${periodName(result.previousPeriod)}, revenue ${change(result.revenueGrowthPercent)} and orders ${change(result.ordersGrowthPercent)}.`;
}
