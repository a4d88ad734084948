export { ScriptedModel, ScriptedModelError, type ScriptedReply, type ScriptedCall } from "./scripted-model.js";
export { scriptedModelInfo } from "./scripted-model-info.js";
export { answerReply, callReply, parallelReply, type ReplyCall } from "./reply-builders.js";
