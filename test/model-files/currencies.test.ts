import { describe, expect, it } from "vitest";
import { currenciesIn, isCurrencyKey } from "../../src/model/grounding/currencies.js";

describe("currencies", () => {
  it("reads a question's currencies in order as codes: a code, a name (the longest, plural too), a sign", () => {
    expect(currenciesIn("I have 100 euro. How much is it in USD?")).toEqual(["EUR", "USD"]);
    expect(currenciesIn("Convert 150 Euros to Canadian dollars.")).toEqual(["EUR", "CAD"]);
    expect(currenciesIn("How much is £5 in Japanese yen?")).toEqual(["GBP", "JPY"]);
    // a name's last word alone: the usual currency of that name
    expect(currenciesIn("What is 5 dollars in rupees?")).toEqual(["USD", "INR"]);
  });

  it("reads no currency in everyday words, nor in capitals that are words too", () => {
    expect(currenciesIn("Who won the real game? ALL of them.")).toEqual([]);
    expect(currenciesIn("What is the capital of Italy?")).toEqual([]);
  });

  it("knows a currency key by its name, or a conversion side by its description", () => {
    expect(isCurrencyKey("from_currency", undefined)).toBe(true);
    expect(isCurrencyKey("currency", "")).toBe(true);
    expect(isCurrencyKey("to", "The currency to convert to.")).toBe(true);
    expect(isCurrencyKey("to", "The unit to convert to.")).toBe(false);
    expect(isCurrencyKey("currency_rate", "A rate.")).toBe(false);
  });
});
