import type { FaultPoints } from '../../faults.js';
import { acceptEdit, prepareEditAsk } from './edit.js';
import { guardCheck } from './guard.js';
import { prepareEdit } from './prepare.js';
import { checkConflict, finishEdit, publishEdit, writeCandidate } from './publish.js';
import { acceptReview, prepareReviewAsk, staleAfterEdit } from './review.js';
import { acceptPassEdit, acceptPlan, acceptSelections, applyAnswer, prepareAssessAsk, preparePassAsk, writeSelectionProposal } from './revise.js';

export type { PrepareEditInput } from './prepare.js';
export type { CandidateInput, CandidateOutput, PassRecord } from './publish.js';
export type { EditCheck } from './edit.js';

/** Every read and write of the checkout and run directory the editing workflows make. */
export function createEditActivities(dependencies: { faults?: FaultPoints } = {}) {
  const { faults } = dependencies;
  return {
    prepareEdit,
    guardCheck,
    prepareReviewAsk,
    acceptReview,
    staleAfterEdit,
    prepareEditAsk,
    acceptEdit,
    prepareAssessAsk,
    acceptPlan,
    preparePassAsk,
    acceptPassEdit,
    acceptSelections,
    writeSelectionProposal,
    applyAnswer,
    writeCandidate,
    checkConflict,
    publishEdit: (input: Parameters<typeof publishEdit>[0]) => publishEdit(input, faults),
    finishEdit,
  };
}
