import { parseJsonLines } from "../json-lines.js";
import type { AgentEvent, AgentEventType } from "./events.js";

type Listener = (event: AgentEvent) => void;

/** The ordered events of one run. Listeners see each event as it is pushed. */
export class EventStream {
  readonly #events: AgentEvent[] = [];
  readonly #listeners = new Set<Listener>();

  constructor(events: Iterable<AgentEvent> = []) {
    for (const event of events) this.#events.push(event);
  }

  /** Append an event and tell the listeners. A listener that throws is removed; it never breaks the run. */
  push(event: AgentEvent): void {
    this.#events.push(event);
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        this.#listeners.delete(listener);
      }
    }
  }

  /** Call `listener` for every later event; returns the function that unsubscribes. */
  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The events so far, oldest first (a copy of the list; events themselves are shared). */
  toArray(): AgentEvent[] {
    return [...this.#events];
  }

  get length(): number {
    return this.#events.length;
  }

  /** The events of one type. */
  ofType<T extends AgentEventType>(type: T): Extract<AgentEvent, { type: T }>[] {
    return this.#events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
  }

  last(): AgentEvent | undefined {
    return this.#events.at(-1);
  }

  [Symbol.iterator](): Iterator<AgentEvent> {
    return this.#events[Symbol.iterator]();
  }

  /** One JSON object per line: a trace file. */
  toJSONL(): string {
    return this.#events.map((e) => JSON.stringify(e)).join("\n") + (this.#events.length ? "\n" : "");
  }

  /** Read a trace written by {@link toJSONL}. A line that is not an event throws, naming the line. */
  static fromJSONL(text: string): EventStream {
    const events = parseJsonLines(
      text,
      (value, line) => {
        if (
          typeof value !== "object" ||
          value === null ||
          typeof (value as { type?: unknown }).type !== "string" ||
          typeof (value as { step?: unknown }).step !== "number"
        ) {
          throw new Error(`trace line ${line}: not an event (needs "type" and "step")`);
        }
        return value as AgentEvent;
      },
      (message) => new Error(`trace ${message}`),
    );
    return new EventStream(events);
  }
}
