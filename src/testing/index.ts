export {
  ScriptedModel,
  ScriptedModelError,
  type ScriptedModelErrorCode,
  type ScriptedReply,
  type ScriptedCall,
  type ScriptedModelOptions,
} from "./scripted-model.js";
export { scriptedModelInfo } from "./scripted-model-info.js";
export { answerReply, callReply, parallelReply, type ReplyCall } from "./reply-builders.js";
