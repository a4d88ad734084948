export { ScriptedModel, ScriptedModelError, type ScriptedReply, type ScriptedCall } from "./scripted-model.js";
