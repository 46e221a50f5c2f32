// Spaced review of missed questions (CollectiveLab.quiz.Review), kept in this browser only.
// A Leitner schedule by calendar day: a question missed anywhere (/quiz or a lesson's
// self-check) is due tomorrow; answered right when due, it comes back in 3 days, then 7, then
// 21, and after that it has been learned and leaves the list; missed again, it is due tomorrow.
// A right answer before the question is due moves nothing. Ids are the bank's question ids; a
// numeric or predict question keeps its id and gets fresh numbers at each review.
(function (global) {
  "use strict";
  const Q = global.CollectiveLab.quiz;
  const STORE_KEY = "collective-lab.quiz.review.v1";
  const INTERVALS = [1, 3, 7, 21]; // days until the next review, by box
  const BATCH = 50; // GET /api/quiz/review takes at most this many ids (MAX_REVIEW)
  const DAY = /^\d{4}-\d{2}-\d{2}$/;

  // A calendar day in the learner's time zone, as "YYYY-MM-DD" (so days compare as strings).
  function dayOf(date) {
    const pad = (n) => String(n).padStart(2, "0");
    return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  }

  function dateOf(day) {
    const [y, m, d] = day.split("-").map(Number);
    return new Date(y, m - 1, d);
  }

  function addDays(day, n) {
    const date = dateOf(day);
    date.setDate(date.getDate() + n);
    return dayOf(date);
  }

  function daysBetween(from, to) {
    return Math.round((dateOf(to) - dateOf(from)) / 86400000);
  }

  // The entry of a question after an answer on `today` (null: not, or no longer, scheduled).
  function after(entry, correct, today) {
    if (!correct) return { box: 0, due: addDays(today, INTERVALS[0]) };
    if (!entry) return null; // right at first sight: nothing to review
    if (entry.due > today) return entry; // not due yet: an early answer moves nothing
    const box = entry.box + 1;
    if (box >= INTERVALS.length) return null; // right after the longest interval: learned
    return { box, due: addDays(today, INTERVALS[box]) };
  }

  function valid(entry) {
    return entry && Number.isInteger(entry.box) && entry.box >= 0 && entry.box < INTERVALS.length &&
      typeof entry.due === "string" && DAY.test(entry.due);
  }

  function read() {
    try {
      const data = JSON.parse(global.localStorage.getItem(STORE_KEY) || "{}");
      if (!data || typeof data !== "object" || Array.isArray(data)) return {};
      return Object.fromEntries(Object.entries(data).filter(([, entry]) => valid(entry)));
    } catch (err) {
      return {}; // storage blocked or corrupt: nothing scheduled
    }
  }

  function write(items) {
    try {
      global.localStorage.setItem(STORE_KEY, JSON.stringify(items));
    } catch (err) {
      /* private mode or quota: the schedule simply is not kept */
    }
  }

  const today = () => dayOf(new Date());

  const Review = {
    STORE_KEY,
    INTERVALS,
    BATCH,
    after,
    addDays,
    // Remember how the learner answered question `id` (missed: correct false).
    record(id, correct) {
      const items = read();
      const entry = after(items[id], correct, today());
      if (entry) items[id] = entry;
      else delete items[id];
      write(items);
    },
    // The ids due today or earlier, the longest overdue first, at most one batch.
    due() {
      const now = today();
      return Object.entries(read()).filter(([, e]) => e.due <= now)
        .sort((a, b) => (a[1].due < b[1].due ? -1 : a[1].due > b[1].due ? 1 : 0))
        .slice(0, BATCH).map(([id]) => id);
    },
    // How many are due now, how many later, and when the next later one is due.
    summary() {
      const now = today();
      const entries = Object.values(read());
      const later = entries.filter((e) => e.due > now).map((e) => e.due).sort();
      return { due: entries.length - later.length, later: later.length, next: later[0] || null };
    },
    // "today", "tomorrow" or "in N days", counted from today.
    when(day) {
      const n = daysBetween(today(), day);
      if (n <= 0) return _("today");
      return n === 1 ? _("tomorrow") : _("in {n} days", { n });
    },
    // Forget ids the bank no longer has (the server reports them).
    drop(ids) {
      const items = read();
      ids.forEach((id) => delete items[id]);
      write(items);
    },
    forget() {
      try { global.localStorage.removeItem(STORE_KEY); } catch (err) { /* nothing kept */ }
    },
  };

  Q.Review = Review;
})(window);
