import { z } from "zod";
import type { WorkflowContext } from "../agent/workflow/workflow.js";
import { renderPrompt } from "../prompt-texts.js";
import { promptFrom, promptParts, type PromptSpec } from "./prompt-spec.js";
import { describeStep, inputText, named, runStep, type Step, type StepFunction } from "./step.js";

/**
 * How the router asks for the route: the classification prompt (text, followed by the route lines and the input; or
 * a function of the input and the route lines; default: prompts/workflows/route.md), alone or with a system text.
 */
export type ClassifyOptions = PromptSpec<[input: string, routes: string]>;

/** Options of {@link router}. */
export interface RouterOptions<Route extends string> {
  /** Route name → what runs there: a prompt, a workflow or code, or a nested agent. A step's description is shown. */
  routes: Record<Route, Step>;
  /** How the route is chosen. Default: the built-in prompt listing each route with its description. */
  classify?: ClassifyOptions;
}

/** The routes as the model sees them: one line each, its description or its name alone. */
function routeLines(routes: Record<string, Step>): string {
  return Object.entries(routes)
    .map(([name, step]) => renderPrompt("workflows/route-line", { name, description: describeStep(step) ?? name }))
    .join("\n");
}

/**
 * Routing: one constrained model call picks a route from the enum of route names (`{"route": ...}`, named `classify`
 * on its `model-call` event); the chosen route then runs on the same input, and its output is the router's. The
 * choice is recorded as a `workflow-note` (label `route`). A reply naming no route is a validation error, retried
 * within the run's retry budget (the grammar makes it impossible when it is on).
 */
export function router<Route extends string>(options: RouterOptions<Route>): StepFunction {
  const routes = options.routes;
  const names = Object.keys(routes ?? {}) as Route[];
  if (names.length === 0) throw new TypeError("router: give at least one route");
  const schema = z.object({ route: z.enum(names as [Route, ...Route[]]) });
  const lines = routeLines(routes);
  const classify = promptParts(options.classify);
  return named("router", async (ctx: WorkflowContext, input: unknown) => {
    const text = inputText(input);
    const prompt = promptFrom(classify, [text, lines], `${lines}\n\n${text}`, () =>
      renderPrompt("workflows/route", { routes: lines, input: text }),
    );
    const { route } = await ctx.ask(prompt, {
      schema,
      name: "classify",
      system: classify.system,
    });
    ctx.note("route", `route ${route}`, { route });
    return runStep(ctx, routes[route], input);
  });
}
