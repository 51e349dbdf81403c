/** Tool skills: synced from a wiki space, a tracker-b project or the native knowledge base (ops/skills.md). */
export { createSkillShelf, type SkillPlace } from './skills.shelf.js';
export { learnedKey, readLearned, type LearnedSkill } from './skills.learned.js';
export {
  countUses,
  promote,
  PROMOTED_KEY,
  readPromoted,
  readUses,
  usesKey,
  type PromotedSkill,
} from './skills.promotion.js';
export { readSkillSet, startSkillsSync, type SkillReader, type SkillsSync } from './skills.sync.js';
export { fitBytes, htmlToText, skillSet, withVariables, type SkillPage } from './skills.text.js';
