import { upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { CommonplaceKind, CommonplaceStatus, type RunStatus } from '../../search-attributes.js';

/** Records a status change only where the starter set the project's search attributes (the time-skipping server has none). */
export function recordStatus(status: RunStatus): void {
  if (workflowInfo().typedSearchAttributes.get(CommonplaceKind) === undefined) return;
  upsertSearchAttributes([{ key: CommonplaceStatus, value: status }]);
}
