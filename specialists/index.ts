/** Shared state conventions: the question, injected faults, and handoff requests. */
export { questionOf, QUESTION_KEY } from './shared/questionOf.js';
export { Fault, FAULTS_KEY, activeFaults } from './shared/Fault.js';
export { Handoff, HANDOFF_KEY, requestHandoff, handoffOf } from './shared/Handoff.js';

/** Policy retrieval: the knowledge base, search, citations, nodes and the `rag` subgraph. */
export { PolicyDocument, KB_DIR, loadPolicyDocuments } from './policy/PolicyDocument.js';
export { searchPolicies, PolicyHit, type SearchPoliciesOptions } from './policy/searchPolicies.js';
export { citesOnlyRetrieved, citedIds, CitationCheck } from './policy/citesOnlyRetrieved.js';
export { rewriteQuery } from './policy/rewriteQuery.js';
export { retrieveNode, type RetrieveNodeOptions } from './policy/retrieveNode.js';
export { requeryNode } from './policy/requeryNode.js';
export {
  draftPolicyAnswer,
  composePolicyAnswer,
  policyWriterInput,
  POLICY_WRITER_INSTRUCTIONS,
  type DraftPolicyAnswerOptions,
} from './policy/draftPolicyAnswer.js';
export { policyDraftNode, type PolicyDraftNodeOptions } from './policy/policyDraftNode.js';
export { reviewPolicyDraft, PolicyReview, ReviewVerdict, type PolicyDraftUnderReview } from './policy/reviewPolicyDraft.js';
export { policyReviewNode, reviewVerdictRouter, type PolicyReviewNodeOptions } from './policy/policyReviewNode.js';
export { policyGraph, type PolicyGraphOptions } from './policy/policyGraph.js';

/** Orders: fixtures, the refund rule, the tools, the tool loop nodes and the `tool` subgraph. */
export { Order, OrderId, orderFixtures } from './orders/Order.js';
export { refundEstimate, RefundEstimate, RefundRule, formatCny, RETURN_WINDOW_DAYS, RESTOCKING_FEE } from './orders/refundEstimate.js';
export { createOrderTools, OrderToolArgs, type OrderTools, type OrderToolsOptions } from './orders/createOrderTools.js';
export {
  PlannedToolCall,
  ToolObservation,
  ObservationCode,
  ToolPlan,
  toolObservationsOf,
  toolRoundsOf,
  callSignature,
} from './orders/ToolLoopState.js';
export { checkToolCall, ordersToolGate, type ToolGate, type CheckedToolCall } from './orders/checkToolCall.js';
export { planOrderStep, findOrderId, asksForRefundByKeywords, ASK_FOR_ORDER, type OrderStep, type RefundQuestion } from './orders/planOrderStep.js';
export {
  toolPlanNode,
  toolPlanRouter,
  ORDERS_PLANNER_INSTRUCTIONS,
  DEFAULT_TOOL_BUDGET,
  BUDGET_SPENT_REASON,
  type ToolPlanNodeOptions,
} from './orders/toolPlanNode.js';
export { toolExecuteNode, type ToolExecuteNodeOptions } from './orders/toolExecuteNode.js';
export { ordersGraph, type OrdersGraphOptions } from './orders/ordersGraph.js';

/**
 * Sales report over MCP: data, client, node and the `report` subgraph. The server itself
 * (`createSalesReportServer`) is imported from its own module by the process that serves it, so
 * loading the graphs never loads the MCP server SDK.
 */
export { salesReport, describeSalesReport, SalesReportResult, SalesPeriod, SALES, SALES_REPORT_TOOL, formatCount, periodName } from './report/salesReport.js';
export {
  openSalesReportClient,
  querySalesReport,
  SALES_REPORT_SERVER_ENTRY,
  type SalesReportClient,
  type SalesReportAnswer,
  type SalesReportClientOptions,
} from './report/salesReportClient.js';
export { salesReportService, type SalesReportService } from './report/salesReportService.js';
export { parsePeriod, type ParsePeriodOptions } from './report/parsePeriod.js';
export { reportMcpNode, REPORT_INSTRUCTIONS, ASK_FOR_PERIOD, type ReportMcpNodeOptions } from './report/reportMcpNode.js';
export { reportGraph, type ReportGraphOptions } from './report/reportGraph.js';

/** Vision: images normalized to text, the fixture registry and the `vision` node. */
export { ImageDescription, VISION_KEY } from './vision/ImageDescription.js';
export { describeImage, MAX_IMAGE_BYTES, VISION_INSTRUCTIONS, UNRECOGNIZED_TEXT, type DescribeImageOptions } from './vision/describeImage.js';
export { ImageAttachment, loadAttachment } from './vision/ImageAttachment.js';
export { imageRegistry, findRegisteredImage, sha256Of, RegisteredImage, VISION_FIXTURES_DIR } from './vision/imageRegistry.js';
export { imageMimeType } from './vision/imageMimeType.js';
export { imageDamage } from './vision/imageDamage.js';
export { encodePng, crc32, PNG_SIGNATURE, type RgbaImage } from './vision/encodePng.js';
export { drawLedImage, type LedColour } from './vision/drawLedImage.js';
export { visionNode, type VisionNodeOptions } from './vision/visionNode.js';
