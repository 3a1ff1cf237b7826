import { deepEqual, equal } from "node:assert/strict";
import { dateParts, dayFirst, firstField, looksLikeDates } from "./dates.ts";

Deno.test("dateParts() reads year-first and year-last dates, with or without a time, and refuses non-days", () => {
  deepEqual(dateParts("2021-03-14"), { year: 2021, month: 3, day: 14, days: 18700, weekday: 0, hour: null });
  deepEqual(dateParts(" 2021/03/14T09:30:36.5Z "), {
    year: 2021,
    month: 3,
    day: 14,
    days: 18700,
    weekday: 0,
    hour: 9.51,
  });
  equal(dateParts("2021-03-14 23:15+02:00")!.hour, 23.25, "an offset is ignored: the clock time counts");
  equal(dateParts("03/14/2021")!.day, 14, "month-first by default");
  equal(dateParts("14/03/2021"), null, "month 14 is none");
  deepEqual(dateParts("14.03.2021", true), dateParts("2021-03-14"), "day-first when told");
  equal(dateParts("2021-02-29"), null, "2021 is no leap year");
  equal(dateParts("2020-02-29")!.weekday, 6);
  equal(dateParts("2021-03-14 24:00"), null);
  equal(dateParts("1970-01-01")!.days, 0);
  equal(dateParts("1969-12-31")!.days, -1);
  for (const v of ["2021-03", "14/03", "2021-03/14", "20210314", "12:30", "", null, 44, "a 2021-03-14"]) {
    equal(dateParts(v), null, String(v));
  }
});

Deno.test("dayFirst() and looksLikeDates() decide a column from its own values", () => {
  equal(firstField("25/12/2020"), 25);
  equal(firstField("2020-12-25"), null);
  equal(dayFirst(["01/02/2020", "03/04/2020"]), false, "nothing above 12: month-first");
  equal(dayFirst(["01/02/2020", "25/12/2020", null]), true);
  const days = Array.from(
    { length: 40 },
    (_, i) => `${String(1 + (i % 28)).padStart(2, "0")}.0${1 + (i % 9)}.2020`,
  );
  equal(looksLikeDates(days), true);
  equal(looksLikeDates(["2020-01-01", "2020-01-02"]), false, "two values are no column of dates");
  const mostly = [...days.slice(0, 38), "soon", "never"];
  equal(looksLikeDates(mostly), true, "38 of 40 parse: 95 %");
  equal(looksLikeDates([...days.slice(0, 30), ...Array.from({ length: 10 }, (_, i) => `x${i}`)]), false);
  equal(looksLikeDates(["Braund, Mr. Owen", "Allen, Miss. E", "113803"]), false);
  equal(looksLikeDates(["1.5", "2.25", "3.75", "4"]), false, "decimals are no dates");
});

Deno.test("dateParts() reads a month by its English name (14-Mar-2021, Mar 14, 2021) and a trailing UTC", () => {
  const day = dateParts("2021-03-14");
  for (
    const v of [
      "14-Mar-2021",
      "14 March 2021",
      "14-mar-2021",
      "Mar 14, 2021",
      "March 14 2021",
      "Mar. 14, 2021",
    ]
  ) {
    deepEqual(dateParts(v), day, v);
  }
  equal(dateParts("Sept 3, 2020")!.month, 9);
  equal(dateParts("May 5 2021 09:30")!.hour, 9.5);
  equal(dateParts("2021-03-14 10:00:00 UTC")!.hour, 10);
  for (const v of ["14-Mrz-2021", "31-Feb-2021", "14-Marc-2021", "Mayday 5 2021", "14 Mar", "Mar 2021"]) {
    equal(dateParts(v), null, v);
  }
  // A column of them is a date column (a daily series written by R's format(x, "%d-%b-%Y")).
  equal(looksLikeDates(["01-Jan-2021", "02-Jan-2021", "03-Jan-2021", "04-Jan-2021"]), true);
});
