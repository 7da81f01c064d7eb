import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** The project's typed search attributes; `commonplace dev` and the test servers register exactly these. */
export const CommonplaceKind = defineSearchAttributeKey('CommonplaceKind', SearchAttributeType.KEYWORD);
export const CommonplaceStatus = defineSearchAttributeKey('CommonplaceStatus', SearchAttributeType.KEYWORD);
export const CommonplaceSubject = defineSearchAttributeKey('CommonplaceSubject', SearchAttributeType.KEYWORD);
export const CommonplaceProfile = defineSearchAttributeKey('CommonplaceProfile', SearchAttributeType.KEYWORD);

export const searchAttributeKeys = [CommonplaceKind, CommonplaceStatus, CommonplaceSubject, CommonplaceProfile];

export type { RunStatus } from './runs/stop.js';

export const TASK_QUEUE = 'commonplace';
