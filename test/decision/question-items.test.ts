import { describe, expect, it } from "vitest";
import { questionItems } from "../../src/decision/question-items.js";
import type { SkillProfile } from "../../src/decision/skill-fit.js";

const skill = (name: string, description: string, properties: Record<string, unknown>): SkillProfile => ({
  name,
  description,
  parameters: { type: "object", properties, required: Object.keys(properties) },
});

const play = skill("spotify.play", "Play songs of an artist.", {
  artist: { type: "string" },
  duration: { type: "integer" },
});
const pythagoras = skill("math.pythagoras", "The hypotenuse of a right triangle.", {
  a: { type: "integer" },
  b: { type: "integer" },
});
const bmi = skill("calculate_bmi", "Body mass index.", { height: { type: "number" }, weight: { type: "number" } });
const distance = skill("get_distance", "Driving distance.", {
  start_loc: { type: "string" },
  end_loc: { type: "string" },
});
const calculator = skill("calculator", "Evaluate arithmetic.", { expression: { type: "string" } });
const texts = (question: string, skills: SkillProfile[]) => questionItems(question, skills).map((item) => item.text);

describe("questionItems", () => {
  it("is the question whole where it asks for one call", () => {
    expect(texts("Calculate the hypotenuse of a right triangle with sides 4 and 5.", [pythagoras])).toEqual([
      "Calculate the hypotenuse of a right triangle with sides 4 and 5.",
    ]);
    expect(texts("What's the driving distance between New York and Washington DC?", [distance])).toHaveLength(1);
    expect(texts("What is the humidity level in Miami, Florida in the upcoming 7 days?", [play])).toHaveLength(1);
  });

  it("gives each value of an enum argument that a clause lists a call of its own, and no call to a choice", () => {
    const stats = skill("precipitation_stats", "Precipitation statistics of a location.", {
      location: { type: "string" },
      time_frame: { type: "string", enum: ["six_months", "year", "five_years"] },
    });
    expect(
      texts(
        "What are the precipitation statistics for the Amazon rainforest for the last six months, the last year, and the last five years?",
        [stats],
      ),
    ).toEqual([
      "What are the precipitation statistics for the Amazon rainforest for the last six months?",
      "What are the precipitation statistics for the Amazon rainforest for the last year?",
      "What are the precipitation statistics for the Amazon rainforest for the last five years?",
    ]);
    const genotype = skill("genotype_frequency", "Frequency of a genotype.", {
      allele_frequency: { type: "number" },
      genotype: { type: "string", enum: ["AA", "Aa", "aa"] },
    });
    const items = texts(
      "The allele frequency is 0.7. Calculate the frequency of the homozygous dominant genotype (AA), heterozygous genotype (Aa), and homozygous recessive genotype (aa).",
      [genotype],
    );
    expect(items).toHaveLength(3);
    expect(items.map((text) => text.match(/\((\w+)\)/)?.[1])).toEqual(["AA", "Aa", "aa"]);
    // "or" is one call's choice, and values far apart are no list
    const sort = skill("sort_list", "Sort a list.", {
      items: { type: "array" },
      order: { type: "string", enum: ["asc", "desc"] },
    });
    expect(texts("Sort [3, 1, 2] asc or desc, whichever is shorter.", [sort])).toHaveLength(1);
  });

  it("reads the values a description quotes as an enum's, a list of them only where a comma or 'and' joins them", () => {
    const resistance = skill("calculate_resistance", "Resistance of a wire.", {
      length: { type: "integer" },
      resistivity: {
        type: "string",
        description: "Resistivity of the material (Default: 'copper'). Allowed values: 'copper', 'aluminum'",
      },
    });
    const items = texts("The resistance of a wire 5m long with resistivity of copper and aluminum", [resistance]);
    expect(items).toHaveLength(2);
    expect(items[0]).toContain("copper");
    expect(items[0]).not.toContain("aluminum");
    expect(items[1]).toContain("aluminum");
    const roots = skill("solve_quadratic", "Roots of a quadratic.", {
      a: { type: "integer" },
      root_type: { type: "string", description: "'real' for real roots, 'all' for both real and complex roots." },
    });
    expect(texts("Solve it with a = 2 and I want to find all roots, real or complex.", [roots])).toHaveLength(1);
  });

  it("reads an array of enum values as taking a list of them whole, and a list of names as the calls'", () => {
    const concerts = skill("concert.find_nearby", "Nearby concerts.", {
      location: { type: "string" },
      amenities: { type: "array", items: { type: "string", enum: ["Parking", "Wi-Fi", "VIP Seating"] } },
    });
    expect(texts("Find classical concerts near Berlin and Paris with available parking.", [concerts])).toHaveLength(2);
    expect(texts("Find a concert near Berlin with Parking and Wi-Fi.", [concerts])).toHaveLength(1);
  });

  it("gives a clause that changes a flag of the skill a call of its own, not one that adds it to the same call", () => {
    const entropy = skill("calculate_entropy_change", "Entropy change of a process.", {
      initial_temp: { type: "integer" },
      isothermal: { type: "boolean" },
    });
    expect(
      texts(
        "The process starts at 300 Kelvin. Can you calculate the entropy change? What if the process is not isothermal?",
        [entropy],
      ),
    ).toHaveLength(2);
    const cell = skill("biology.get_cell_info", "Information about a cell type.", {
      cell_type: { type: "string" },
      detailed: { type: "boolean" },
    });
    expect(
      texts(
        "Provide a detailed description of a neuron cell and then compare it with a less detailed description of a muscle cell.",
        [cell],
      ),
    ).toHaveLength(2);
    const regression = skill("linear_regression", "Fit a linear regression.", {
      target: { type: "string" },
      standardize: { type: "boolean" },
    });
    expect(
      texts("Run a linear regression with the target 'Purchase_Amount'. Also apply standardization.", [regression]),
    ).toHaveLength(1);
  });

  it("splits at 'and' where the clause after it gives the same kinds of values, a name or quote of its own", () => {
    const exhibition = skill("museum.exhibition_detail", "Details of an exhibition.", {
      exhibition_name: { type: "string" },
      museum_name: { type: "string" },
    });
    const q =
      "Give me the detail of the exhibition named 'Wonder of Nature' in the Louvre museum, and 'Age of Reptiles' in the British Museum.";
    expect(texts(q, [exhibition])).toEqual([
      "Give me the detail of the exhibition named 'Wonder of Nature' in the Louvre museum",
      "'Age of Reptiles' in the British Museum.",
    ]);
    const restaurant = skill("restaurant.search", "Find a restaurant.", {
      location: { type: "string" },
      cuisine: { type: "string" },
    });
    const r =
      "Find an Italian restaurant near me in New York that has vegetarian food and a Japanese sushi restaurant in Los Angeles that offers delivery.";
    expect(texts(r, [restaurant])).toHaveLength(2);
    // the same name on both sides, numbers only, or no more texts than the skill takes: one call
    const entropy = skill("entropy_change", "Entropy change.", {
      initial_temp: { type: "number" },
      final_temp: { type: "number" },
    });
    const t =
      "The process starts at an initial temperature of 300 Kelvin and ends at a final temperature of 350 Kelvin.";
    expect(texts(t, [entropy])).toHaveLength(1);
    const route = "Find the distance from the Louvre in Paris to the Tower in London and the time it takes.";
    const twoPlaces = skill("route", "A route.", {
      start: { type: "string" },
      start_city: { type: "string" },
      end: { type: "string" },
      end_city: { type: "string" },
    });
    expect(texts(route, [twoPlaces])).toHaveLength(1);
  });

  it("gives a clause without values of its own the values of the one before it, and its own skill", () => {
    const entropy = skill("calculate_entropy_change", "Entropy change of a process.", {
      initial_temp: { type: "integer" },
      final_temp: { type: "integer" },
      isothermal: { type: "boolean" },
    });
    const q =
      "The process starts at 300 Kelvin and ends at 350 Kelvin. The process is isothermal. Can you calculate the " +
      "entropy change for this process? What if the process is not isothermal, how does the entropy change?";
    const items = texts(q, [entropy]);
    expect(items).toHaveLength(2);
    expect(items[1].startsWith("What if the process is not isothermal")).toBe(true);
    expect(items[1]).toContain("300 Kelvin");
    const now = skill("time_zones.get_current_time", "The current time in a city.", { location: { type: "string" } });
    const difference = skill("time_zones.get_time_difference", "The time difference between two cities.", {
      city_1: { type: "string" },
      city_2: { type: "string" },
    });
    const both = questionItems(
      "What is the current time in Beijing and Tokyo and what's the time difference between two cities?",
      [now, difference],
    );
    expect(both.at(-1)!.skill).toBe("time_zones.get_time_difference");
    expect(both.at(-1)!.text).toContain("Beijing and Tokyo");
  });

  it("gives every item the shared terms written after the last one, a sentence with a value for all of them", () => {
    const chi = skill("chi_squared_test", "Chi-squared test.", {
      table: { type: "array", items: { type: "integer" } },
      alpha: { type: "number" },
    });
    const q =
      "The first table is [45, 55, 35, 65] and the second table is [30, 70, 50, 50]. Perform a Chi-Squared test on " +
      "both tables. Use a significance level of 0.05 for both tests. Can you assist me with these?";
    const items = texts(q, [chi]);
    expect(items).toHaveLength(2);
    expect(items[0]).toContain("[45, 55, 35, 65]");
    expect(items[0]).not.toContain("[30, 70, 50, 50]");
    // the sentence with a value for both goes to the first item too; one without a value does not
    expect(items[0]).toContain("Use a significance level of 0.05 for both tests.");
    expect(items[0]).not.toContain("Can you assist me");
    expect(items[1]).toContain("Use a significance level of 0.05 for both tests.");
  });

  it("splits a clause that repeats 'between' or 'from' after ', and'", () => {
    expect(
      texts(
        "What's the driving distance between New York and Washington DC, and between Los Angeles and San Francisco?",
        [distance],
      ),
    ).toHaveLength(2);
  });

  it("zips lists the question says go respectively", () => {
    expect(
      texts(
        "Play songs from the artists Taylor Swift and Maroon 5, with a play time of 20 minutes and 15 minutes respectively, on Spotify.",
        [play],
      ),
    ).toEqual([
      "Play songs from the artists Taylor Swift, with a play time of 20 minutes respectively, on Spotify.",
      "Play songs from the artists Maroon 5, with a play time of 15 minutes respectively, on Spotify.",
    ]);
  });

  it("groups a list of numerals by the number arguments the skill takes", () => {
    expect(texts("Compute the Pythagorean Theorem of two side lengths: 3 and 4, 5 and 12.", [pythagoras])).toEqual([
      "Compute the Pythagorean Theorem of two side lengths: 3 and 4.",
      "Compute the Pythagorean Theorem of two side lengths: 5 and 12.",
    ]);
  });

  it("gives a whole list to an expression, and a list in brackets to one call", () => {
    expect(texts("What is the average of 12, 18, 27 and 43?", [calculator])).toHaveLength(1);
    expect(texts("Find the mean of [12, 15, 18] and [20, 21]", [calculator])).toHaveLength(1);
  });

  it("splits clauses that begin another call", () => {
    expect(
      texts(
        "Calculate the body mass index for a person who is 6 feet tall and weighs 80 kg, also for a person who is 5.6 feet and weighs 60 kg.",
        [bmi],
      ),
    ).toEqual([
      "Calculate the body mass index for a person who is 6 feet tall and weighs 80 kg",
      "for a person who is 5.6 feet and weighs 60 kg.",
    ]);
    expect(texts("A car starts at 5 m/s. How far does it go in 10 s?", [bmi])).toHaveLength(1);
  });

  it("reads no item into the pronoun I, a clause's opener, or a hyphenated word", () => {
    const lyrics = skill("get_song_lyrics", "Lyrics of a song.", {
      song: { type: "string" },
      artist: { type: "string" },
    });
    const hotel = skill("hotel_booking", "Book a hotel.", {
      hotel: { type: "string" },
      check_in: { type: "string" },
      check_out: { type: "string" },
    });
    const both = [lyrics, hotel];
    // "the Beatles and I'd" is no list of two names
    expect(
      texts("I'm a big fan of the Beatles and I'd like to know the lyrics of their song 'Hey Jude'.", both),
    ).toHaveLength(1);
    // "Lastly, I am" carries no value of its own: the clause after it is the item
    expect(
      texts(
        "Book the 'Hilton' from '2022-05-01' to '2022-05-10'. Lastly, I am curious about the lyrics of 'Hey Jude'.",
        both,
      ),
    ).toHaveLength(2);
    // "and check-out" does not begin another request the way "and check" would
    expect(
      texts("Book the 'Hilton' with check-in date '2022-10-15' and check-out date '2022-10-20'.", both),
    ).toHaveLength(1);
    // "After that" sequences the request; it takes up no result
    const items = questionItems("Play Taylor Swift for 20 minutes. After that, play Maroon 5 for 15 minutes.", [play]);
    expect(items.map((item) => item.chain ?? false)).toEqual([false, false]);
  });

  it("marks a clause that takes up the result before it as a chain", () => {
    const items = questionItems("Compute (12.5 + 7.5) * 3, then divide the result by 4.", [calculator]);
    expect(items).toEqual([{ text: "Compute (12.5 + 7.5) * 3" }, { text: "divide the result by 4.", chain: true }]);
  });

  it("reads a pronoun as a result taken up only where the clause has no values of its own", () => {
    const interest = skill("compound_interest", "Compound interest.", { principal: { type: "number" } });
    const lawsuits = skill("lawsuits_search", "Search lawsuits against a company.", {
      company: { type: "string" },
      location: { type: "string" },
    });
    const items = questionItems(
      "Calculate the compound interest on $5000. Secondly, check the lawsuits against the company 'Tech Corp': were any filed against them in 'San Francisco'?",
      [interest, lawsuits],
    );
    expect(items.map((item) => item.chain ?? false)).toEqual([false, false]);
    expect(questionItems("Convert 10 km to miles, then convert that to feet.", [calculator]).at(-1)?.chain).toBe(true);
    expect(questionItems("Multiply 48 by 25, then divide it by 100.", [calculator]).at(-1)?.chain).toBe(true);
  });

  it("gives each skill a list of their own words names its call", () => {
    const variance = skill("statistics.variance", "Variance of data.", {
      data: { type: "array", items: { type: "number" } },
    });
    const median = skill("statistics.median", "Median of data.", {
      data: { type: "array", items: { type: "number" } },
    });
    const items = questionItems("Determine the median and variance for the data points 3,4,5,2,8,5.", [
      variance,
      median,
    ]);
    expect(items.map((item) => item.skill ?? "").sort((a, b) => a.localeCompare(b))).toEqual([
      "statistics.median",
      "statistics.variance",
    ]);
  });

  it("gives a clause with fewer values than the one before that one's, its own values in their places", () => {
    const evolution = skill("prediction.evolution", "Predict the evolutionary rate of a species.", {
      species: { type: "string" },
      years: { type: "integer" },
      model: { type: "string" },
    });
    const items = texts(
      "What would be the predicted evolutionary rate for the African Elephant species over a period of 5000 years " +
        "using the Darwin model, and how would this prediction change if we use the Lamarck model instead?",
      [evolution],
    );
    expect(items).toHaveLength(2);
    expect(items[1].startsWith("how would this prediction change if we use the Lamarck model")).toBe(true);
    expect(items[1]).toContain("African Elephant species over a period of 5000 years using the Lamarck model");
    expect(items[1]).not.toContain("Darwin");
    const house = skill("predict_house_price", "Predict a house's price.", {
      area: { type: "integer" },
      rooms: { type: "integer" },
      year: { type: "integer" },
      location: { type: "string" },
    });
    const houses = texts(
      "Predict the price of a house with an area of 2500 square feet, 3 rooms, constructed in the year 2000, and " +
        "located in New York, and then compare it with the price of a similar house but with an area of 3000 square " +
        "feet, constructed in the year 2005, and located in Los Angeles?",
      [house],
    );
    expect(houses).toHaveLength(2);
    expect(houses[1]).toContain(
      "area of 3000 square feet, 3 rooms, constructed in the year 2005, and located in Los Angeles",
    );
    for (const theirs of ["2500", "2000", "New York"]) expect(houses[1]).not.toContain(theirs);
    // as many values as the clause before: its own alone ("... for rock events in Chicago, IL for the next 10 days")
    const events = skill("find_upcoming", "Find upcoming events.", {
      location: { type: "string" },
      genre: { type: "string" },
      days_ahead: { type: "integer" },
    });
    const found = texts(
      "Find me upcoming jazz events in Los Angeles, CA for the next 14 days and then find the same for rock events " +
        "in Chicago, IL for the next 10 days.",
      [events],
    );
    expect(found).toHaveLength(2);
    expect(found[1]).not.toContain("Los Angeles");
    // among several skills, a clause with fewer values is another request, its own values alone
    const primes = skill("find_prime_numbers", "Prime numbers in a range.", {
      start: { type: "integer" },
      end: { type: "integer" },
    });
    const fibonacci = skill("get_fibonacci_sequence", "The Fibonacci sequence.", { count: { type: "integer" } });
    const two = texts("Find all prime numbers between 50 and 150. Then get the fibonacci series upto 150.", [
      primes,
      fibonacci,
    ]);
    expect(two).toHaveLength(2);
    expect(two[1]).not.toContain("50 and");
  });

  it("reads the last item's closing words that name an optional argument, past its values, as every item's", () => {
    const route = skill("calc_distance", "Driving distance.", {
      start_loc: { type: "string" },
      end_loc: { type: "string" },
    });
    (route.parameters.properties as Record<string, unknown>).shortest_route = { type: "boolean" };
    const items = texts(
      "What's the driving distance between New York and Washington DC, and between Los Angeles and San Francisco " +
        "with optional parameter shortest route enabled?",
      [route],
    );
    expect(items).toHaveLength(2);
    expect(items[0]).toContain("shortest route enabled");
    // words that name no optional argument stay the last item's
    const plain = texts(
      "What's the driving distance between New York and Washington DC, and between Los Angeles and San Francisco " +
        "with a stop for lunch?",
      [route],
    );
    expect(plain[0]).not.toContain("lunch");
  });

  it("reads a clause after a comma that speaks of both items as every item's", () => {
    const search = skill("lawsuit_search", "Retrieve lawsuits.", {
      entity: { type: "string" },
      county: { type: "string" },
      state: { type: "string" },
    });
    const items = texts(
      'Retrieve all lawsuits involving the entity "Google" from the county of "Santa Clara" and then do the same for ' +
        'the entity "Facebook" in the county of "San Mateo", both in the state of California?',
      [search],
    );
    expect(items).toHaveLength(2);
    expect(items[0]).toContain("both in the state of California");
    expect(items[0]).not.toContain("San Mateo");
  });

  it("reads one skill's values given again and again in one order as a call each, not a list of one kind", () => {
    const tax = skill("calculate_sales_tax", "Sales tax of a purchase.", {
      purchase_amount: { type: "number" },
      city: { type: "string" },
      state: { type: "string" },
    });
    const items = texts(
      "Calculate the sales tax on a purchase amount of $30.45 in Chicago, Illinois, $52.33 in Sacramento, " +
        "California and $11.23 in Portland, Oregon.",
      [tax],
    );
    expect(items).toHaveLength(3);
    expect(items[1]).toContain("$52.33 in Sacramento, California");
    expect(items[1]).not.toContain("Chicago");
    expect(items[2]).toContain("$11.23 in Portland, Oregon");
    // all of them fit one call: one item
    expect(texts("A purchase of $30.45 in Chicago, Illinois.", [tax])).toHaveLength(1);
    // a sentence's first word is no name of a period ("The second equation has coefficients a = 1, ...")
    const quadratic = skill("solve_quadratic", "Roots of a quadratic.", {
      a: { type: "integer" },
      b: { type: "integer" },
      c: { type: "integer" },
      root_type: { type: "string" },
    });
    const equations =
      "Solve these. The first one has coefficients a = 2, b = 5, and c = 3. The second one has coefficients a = 1, " +
      "b = -3, and c = 2.";
    expect(texts(equations, [quadratic])).toHaveLength(2);
    // an enum value is a value of its own kind: "stage 7 in easy mode and stage 3 in hard mode" is two calls, each
    // with its own stage
    const save = skill("game.save_progress", "Save a game.", {
      stage: { type: "integer" },
      mode: { type: "string", enum: ["easy", "hard"] },
    });
    const saves = texts("How to save game progress at stage 7 in easy mode and stage 3 in hard mode?", [save]);
    expect(saves).toHaveLength(2);
    expect(saves[1]).toContain("stage 3 in hard mode");
    expect(saves[1]).not.toContain("7");
  });

  it("reads no list from numerals that each measure something else, and no clause from a phrase's object", () => {
    const forest = skill("random_forest.train", "Train a random forest.", {
      n_estimators: { type: "integer" },
      max_depth: { type: "integer" },
      data: { type: "string" },
    });
    expect(
      texts(
        "The dataset has 1000 rows, and 20 columns, and I would like to set the number of trees to 200 and the depth to 10.",
        [forest],
      ),
    ).toHaveLength(1);
    expect(texts("Find the driving distance of 20 miles and 40 miles from Boston.", [distance])).toHaveLength(2);
    // things counted, for a skill that takes no number, are a list ("3 widgets and 2 gadgets")
    const price = skill("product_price", "The price of a product.", { product: { type: "string" } });
    expect(texts("In the Acme shop, how much do 3 widgets and 2 gadgets cost in total?", [price])).toHaveLength(2);
    const worth = skill("celebrity_net_worth.get", "Net worth of a celebrity.", { name: { type: "string" } });
    const bmiOf = texts(
      "Can you tell me the net worth of Lionel Messi? Lastly, could you calculate the BMI of another person who weighs 200 pounds and is 6 feet tall?",
      [worth, bmi],
    );
    expect(bmiOf).toHaveLength(2);
    expect(bmiOf[1]).toContain("the BMI of another person");
  });

  it("gives no call to a last question that sums the others up", () => {
    const painting = skill("modify_painting", "Modify a painting's attributes.", {
      size: { type: "string" },
      medium: { type: "string" },
    });
    const evolution = skill("prediction.evolution", "Predict the evolutionary rate of a species.", {
      species: { type: "string" },
      years: { type: "integer" },
    });
    const question =
      "You want to change the painting's medium to oil. Then predict the evolutionary rate of the African elephant for 100 years. What would be the new attributes of the painting and the predicted evolutionary rate of the African elephant?";
    expect(texts(question, [painting, evolution])).toHaveLength(2);
    // a last clause with values of its own is a call ("finally from San Francisco back to New York")
    const route = skill("get_traffic_info", "Traffic on a route.", {
      start_location: { type: "string" },
      end_location: { type: "string" },
    });
    expect(
      texts(
        "What is the traffic from New York to Los Angeles, then from Los Angeles to San Francisco, and finally from San Francisco back to New York?",
        [route],
      ),
    ).toHaveLength(3);
  });

  it("reads a range's two ends as one call's and repeats every call so far where a clause asks for all of them", () => {
    const area = skill("calculate_area_under_curve", "Area under a curve.", {
      function: { type: "string" },
      start_x: { type: "integer" },
      end_x: { type: "integer" },
      method: { type: "string", description: "Choices are 'trapezoid' or 'simpson'." },
    });
    const question =
      "Could you calculate the area under the curve for the function 'x^3' between x values of 2 and 5 using the 'trapezoid' method, and then do the same calculation but using the 'simpson' method? After that, could you repeat these calculations but for the function '2x^2+3x-1' between x values of -1 and 3?";
    const items = texts(question, [area]);
    expect(items).toHaveLength(4);
    expect(items[0]).toContain("between x values of 2 and 5");
    expect(items.slice(2).every((text) => text.includes("'2x^2+3x-1' between x values of -1 and 3"))).toBe(true);
    expect(items[3]).toContain("simpson");
    // "the same process" is one call again, not each call so far
    const update = skill("update_user_info", "Update a customer's info.", { user_id: { type: "integer" } });
    expect(
      texts(
        "Update the customer with user ID 12345, then repeat the same process for another customer with user ID 67890.",
        [update],
      ),
    ).toHaveLength(2);
  });

  it("keeps a state's code with its place in a list", () => {
    const population = skill("get_population", "Population of an area.", {
      area: { type: "string", description: "Name of the city, state, or country." },
      type: { type: "string", description: "Whether the area is a city, state or country." },
    });
    expect(texts("What is the population of Austin, TX, Boston, MA and Denver, CO?", [population])).toEqual([
      "What is the population of Austin, TX?",
      "What is the population of Boston, MA?",
      "What is the population of Denver, CO?",
    ]);
  });

  it("gives a clause that opens another call of the one skill, with words of its own, a call", () => {
    const order = skill("whole_foods.order", "Order food from Whole Foods.", {
      location: { type: "string", description: "Location of Whole Foods." },
      items: { type: "array", items: { type: "string" }, description: "List of items to order." },
      size: { type: "string", description: "Size of the order." },
    });
    const orders = texts(
      "I want to order a large pepperoni pizza and a chicken Caesar salad from Whole Foods at the downtown location and then another order of the same items from the uptown location.",
      [order],
    );
    expect(orders).toHaveLength(2);
    expect(orders[1]).toMatch(/^another order of the same items from the uptown location/);
    // (the first ends at its place: no "and then" left for a value to copy)
    expect(orders[0]).toMatch(/at the downtown location$/);
    // a clause that asks for nothing of the skill is no call ("Also, round it to two decimals")
    expect(
      texts("I want to order a large pepperoni pizza from Whole Foods at the downtown location. Also, be quick.", [
        order,
      ]),
    ).toHaveLength(1);
  });

  it("gives each numeral of a list that one argument measures a call of its own", () => {
    const field = skill("calculate_electric_field", "Electric field of a point charge.", {
      charge: { type: "number", description: "Charge in coulombs." },
      distance: { type: "number", description: "Distance from the charge in meters." },
    });
    const items = texts(
      "Calculate the electric field at a distance of 0.5 meters from a charge of 2 coulombs. Then, also calculate the electric field at a distance of 1 meter and 2 meters from the same charge.",
      [field],
    );
    expect(items).toHaveLength(3);
    expect(items[2]).toContain("2 meters");
    expect(items[2]).not.toContain("1 meter");
    // a list of two measures of different things is one call's ("4 meters and 2 coulombs")
    expect(texts("What is the electric field at 4 meters and 2 coulombs?", [field])).toHaveLength(1);
  });

  it("gives every clause an enum list the question writes before the first item's values or after the last's", () => {
    const cases = skill("court_case_status", "The status of a court case.", {
      case_number: { type: "string" },
      court: { type: "string" },
      details: { type: "string", enum: ["status", "trial_date"] },
    });
    const q =
      "What is the status and scheduled trial date for case number XY1234 in Los Angeles County Court, and case number GH5678 in Orange County Court?";
    const items = texts(q, [cases]);
    expect(items).toHaveLength(4);
    expect(items.filter((text) => text.includes("GH5678") && /\bstatus\b/.test(text))).toHaveLength(1);
    expect(items.filter((text) => text.includes("GH5678") && /trial date/.test(text))).toHaveLength(1);
    expect(items.filter((text) => text.includes("XY1234"))).toHaveLength(2);
    const route = skill("calculate_shortest_distance", "The shortest driving distance.", {
      start_location: { type: "string" },
      end_location: { type: "string" },
      route_preference: { type: "string", enum: ["Shortest", "Scenic"] },
    });
    const trip =
      "What is the shortest driving distance from New York City to Los Angeles, and then from Los Angeles to Miami, considering both the shortest and scenic route preferences?";
    expect(texts(trip, [route])).toHaveLength(4);
    // a clause that names a value of its own keeps it
    const own =
      "What is the status for case number XY1234 in Los Angeles County Court, and the trial date for case number GH5678 in Orange County Court?";
    expect(texts(own, [cases])).toHaveLength(2);
  });

  it("starts a call at a sentence that opens with a joining word before an ordinal, and keeps a clause's tail its own", () => {
    const quadratic = skill("solve_quadratic", "Roots of a quadratic equation.", {
      a: { type: "integer" },
      b: { type: "integer" },
      c: { type: "integer" },
      root_type: { type: "string", description: "'real' or 'all'." },
    });
    const q =
      "Can you help me solve the following quadratic equations? The first one has coefficients a = 2, b = 5, and c = 3 " +
      "and I want to find all roots, real or complex. The second equation has coefficients a = 1, b = -3, and c = 2 " +
      "and I only want to find the real roots. And the last equation has coefficients a = 1, b = 2, and c = 1 and I " +
      "want to find all roots.";
    const items = texts(q, [quadratic]);
    // "And the last equation" is a call of its own
    expect(items).toHaveLength(3);
    expect(items[2]).toContain("c = 1");
    expect(items[1]).not.toContain("c = 1");
    // "and I only want to find the real roots" is the second equation's, no other's
    expect(items.filter((text) => text.includes("only want"))).toHaveLength(1);
    expect(items[1]).toContain("only want");
  });

  it("gives a clause that takes up the list of the clause before it by a plural noun a call per item", () => {
    const countryYear = { country: { type: "string" }, year: { type: "integer" } };
    const life = skill("life_expectancy", "Average life expectancy of a country in a year.", countryYear);
    const gdp = skill("gdp", "Gross domestic product of a country in a year.", countryYear);
    const q =
      "What was the average life expectancy in the USA in the year 1900 and 1950? Additionally, what was the Gross " +
      "Domestic Product (GDP) of the USA in these years?";
    const items = questionItems(q, [life, gdp]);
    expect(items).toHaveLength(4);
    expect(
      items.filter((item) => /GDP/.test(item.text)).map((item) => /\b(?:1900|1950)\b/.exec(item.text)?.[0]),
    ).toEqual(["1900", "1950"]);
    // a noun that is not the list's: no call per item ("these projections" of "population growth of Japan and India")
    const growth = skill("population_projections", "Projected population growth.", {
      country: { type: "string" },
      years: { type: "integer" },
      growth_rate: { type: "number" },
    });
    const projections =
      "What would be the projected population growth of Japan and India in the next 10 years? How would these " +
      "projections change with a growth rate of 1.5%?";
    expect(texts(projections, [growth]).filter((text) => /How would/.test(text))).toHaveLength(1);
  });

  it("gives a clause that names the same thing as a clause before that thing's value", () => {
    const gamePlatform = { game: { type: "string" }, platform: { type: "string" } };
    const updates = skill("games.update.find", "The latest updates of a game.", gamePlatform);
    const price = skill("games.price.find", "The current price of a game.", gamePlatform);
    const q =
      "Could you please find the latest updates for the game 'Call of Duty' on the 'Playstation' platform, and then " +
      "find the current price for the same game on the 'Xbox' platform?";
    const items = questionItems(q, [updates, price]);
    expect(items).toHaveLength(2);
    expect(items[1].text).toContain("'Xbox'");
    expect(items[1].text).toContain("the same game: 'Call of Duty'");
    // not the clause before's other values
    expect(items[1].text).not.toContain("Playstation");
  });

  it("reads an ordinal of a thing the skill takes several of by numbered keys as the same call's value", () => {
    const force = skill("electromagnetic_force", "The force between two charges.", {
      charge1: { type: "number" },
      charge2: { type: "number" },
      distance: { type: "number" },
    });
    const q =
      "You are given two charges. The first charge has a magnitude of 5 coulombs and the second charge has a " +
      "magnitude of 10 coulombs. They are 2 meters apart. What is the force between them?";
    expect(texts(q, [force])).toHaveLength(1);
    // a thing no numbered key counts is another call's ("The second triangle has ...")
    const triangle = skill("triangle_area", "Area of a triangle.", {
      side1: { type: "number" },
      side2: { type: "number" },
    });
    const two = "The first triangle has sides 3 and 4, and the second triangle has sides 5 and 12.";
    expect(texts(two, [triangle])).toHaveLength(2);
  });
});
