import { describe, expect, it } from 'vitest';
import { describeSalesReport, parsePeriod, salesReport } from '../../../specialists/index.js';

describe('salesReport', () => {
  it('holds the three months and computes growth against the previous month', () => {
    expect(salesReport('2026-09')).toEqual({
      found: true,
      period: '2026-09',
      revenue: 1_286_000,
      orders: 4_268,
      previousPeriod: '2026-08',
      revenueGrowthPercent: 12.81,
      ordersGrowthPercent: 9.3,
    });
    expect(salesReport('2026-08')).toMatchObject({ revenue: 1_140_000, orders: 3_905, revenueGrowthPercent: 8.37 });
    expect(salesReport('2026-07')).toMatchObject({ revenue: 1_052_000, orders: 3_610, previousPeriod: null, revenueGrowthPercent: null });
  });

  it('answers an unknown period with the periods it has', () => {
    expect(salesReport('2026-10')).toEqual({ found: false, period: '2026-10', availablePeriods: ['2026-07', '2026-08', '2026-09'] });
    expect(describeSalesReport(salesReport('2026-10'))).toBe('There is no sales report for 2026-10. Available periods: 2026-07, 2026-08, 2026-09.');
  });

  it('describes a month with separators and two-decimal growth', () => {
    const text = describeSalesReport(salesReport('2026-09'));
    expect(text).toContain('revenue 1,286,000');
    expect(text).toContain('4,268 orders');
    expect(text).toContain('revenue grew 12.81%');
    expect(describeSalesReport(salesReport('2026-07'))).toContain('There is no earlier month to compare with.');
  });
});

describe('parsePeriod', () => {
  it.each([
    ['Query the September 2026 sales report and tell me revenue and order volume.', '2026-09'],
    ['sales for 2026-08 please', '2026-08'],
    ['How did Sep 2026 go?', '2026-09'],
    ['numbers for sept. 2026', '2026-09'],
    ['July, 2026 revenue', '2026-07'],
    ['May 2026 report', '2026-05'],
  ])('reads %j as %s', (text, period) => {
    expect(parsePeriod(text)).toBe(period);
  });

  it('assumes the given year for a month named without one', () => {
    expect(parsePeriod('the August sales report', { defaultYear: 2026 })).toBe('2026-08');
  });

  it('finds nothing when no month is named, and does not read the verb "may" as a month', () => {
    expect(parsePeriod('show me the sales report')).toBeUndefined();
    expect(parsePeriod('may I see the sales report?')).toBeUndefined();
    expect(parsePeriod('the market report')).toBeUndefined();
  });
});
