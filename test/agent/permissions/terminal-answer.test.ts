import { describe, expect, it } from 'vitest';
import { parseApprovalAnswer } from '../../../agent/chat.js';

describe('the terminal approval answer', () => {
  it('approves on y, stores a rule on a, and denies on anything else, an empty line included', () => {
    expect(['y', 'Yes', ' y '].map((a) => parseApprovalAnswer(a))).toEqual([
      'approve',
      'approve',
      'approve',
    ]);
    expect(['a', 'ALWAYS'].map((a) => parseApprovalAnswer(a))).toEqual(['always', 'always']);
    expect(['', 'n', 'no', 'yep', 'sure'].map((a) => parseApprovalAnswer(a))).toEqual([
      'deny',
      'deny',
      'deny',
      'deny',
      'deny',
    ]);
  });
});
