import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

/** The project's typed search attributes; `commonplace dev` and the test servers register exactly these. */
export const CommonplaceKind = defineSearchAttributeKey('CommonplaceKind', SearchAttributeType.KEYWORD);
export const CommonplaceStatus = defineSearchAttributeKey('CommonplaceStatus', SearchAttributeType.KEYWORD);
export const CommonplaceSubject = defineSearchAttributeKey('CommonplaceSubject', SearchAttributeType.KEYWORD);
export const CommonplaceProfile = defineSearchAttributeKey('CommonplaceProfile', SearchAttributeType.KEYWORD);

export const searchAttributeKeys = [CommonplaceKind, CommonplaceStatus, CommonplaceSubject, CommonplaceProfile];

/** A run's search attributes as the client starts it: its kind, status running (until its lifecycle says otherwise), what it is about, its profile. */
export function startingAttributes(kind: string, subject: string, profile: string): SearchAttributePair[] {
  return [
    { key: CommonplaceKind, value: kind },
    { key: CommonplaceStatus, value: 'running' },
    { key: CommonplaceSubject, value: subject },
    { key: CommonplaceProfile, value: profile },
  ];
}

export type { RunStatus } from './runs/stop.js';

export const TASK_QUEUE = 'commonplace';
