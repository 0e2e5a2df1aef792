/* scorekeeper: the little the pages need beyond htmx. No framework. */
(function () {
  "use strict";
  var banner, back = null;

  // An event of the live poll's request (htmx 2 fires beforeSwap on the panel).
  function isPoll(e) {
    var d = e.detail || {}, elt = (d.requestConfig && d.requestConfig.elt) || d.elt;
    return !!(elt && elt.hasAttribute && elt.hasAttribute("data-poll"));
  }

  // keep: nothing moves as the banner comes or goes (a finger may be on its way). Too near the
  // top to scroll back by it, it says "Back online" (same height) until scrolled past, tapped
  // (a page kept offline is then loaded again: it is not followed live) or this phone's own next
  // change comes in (the page moves then anyway).
  function showOffline(off, keep) {
    if (!banner) banner = document.getElementById("offline");
    if (!banner || document.body.hasAttribute("data-no-banner")) return;
    if (back !== null) { banner.innerHTML = back; back = null; banner.style.minHeight = ""; }
    if (!off && keep && !banner.hidden && window.scrollY < banner.offsetHeight) {
      back = banner.innerHTML;
      banner.style.minHeight = banner.offsetHeight + "px";
      var copy = document.documentElement.hasAttribute("data-offline-copy");
      var close = document.createElement("button");
      close.type = "button";
      close.textContent = banner.getAttribute(copy ? "data-say-online-copy" : "data-say-online");
      banner.textContent = "";
      banner.appendChild(close);
      document.documentElement.classList.remove("is-offline");
      return;
    }
    var main = document.querySelector("main"), y = main && main.getBoundingClientRect().top;
    banner.hidden = !off;
    document.documentElement.classList.toggle("is-offline", off);
    if (keep && main) window.scrollBy({ top: main.getBoundingClientRect().top - y, behavior: "instant" });
  }

  // The control last tapped (a message about it leaves it where it is)
  var tapped = null;
  document.addEventListener("click", function (e) { tapped = e.target.closest && e.target.closest("button, label"); }, true);
  // Enter on a die picked with the arrows (a radio) of an entry form sends nothing: the browser
  // sent the form by its first usable button, "in 1" or a second die of 1, that nobody picked (a
  // playtest). A typed number (Mice and Men's other penalty) is sent by Enter as before.
  document.addEventListener("keydown", function (e) {
    var el = e.target;
    if (e.key === "Enter" && el.type === "radio" && el.form && el.form.classList.contains("entry")) e.preventDefault();
  });
  // later: the key of what it says once the connection is back
  function say(text, later) {
    var area = document.querySelector("#panel .send-error") || document.getElementById("messages");
    if (!area || !text) return;
    var before = tapped && tapped.isConnected ? tapped.getBoundingClientRect().top : null;
    area.innerHTML = "";
    // (the refusal of an earlier tap goes)
    document.querySelectorAll("#panel > .msg[role=alert]").forEach(function (el) { el.remove(); });
    var p = document.createElement("p");
    p.className = "msg error";
    p.setAttribute("role", "alert");
    p.textContent = text;
    if (later) p.setAttribute("data-back", later);
    area.appendChild(p);
    // The tapped control stays where it was (a second tap must land on it, not on a die that
    // moved there); with none, the message comes into view below the offline banner. A message
    // left out of view is also shown at the bottom, over the page (nothing moves).
    var top = banner && !banner.hidden ? banner.getBoundingClientRect().bottom : 0;
    var r = p.getBoundingClientRect(), dy = 0;
    if (before !== null) dy = tapped.getBoundingClientRect().top - before;
    else if (r.top < top || r.bottom > window.innerHeight) dy = r.top - top;
    if (dy) window.scrollBy({ top: dy, behavior: "instant" });
    if (r.top - dy < top || r.bottom - dy > window.innerHeight) note(text, 6000, true);
  }

  // 24-hour time in the group's time zone.
  function clock(date) {
    var options = { hour: "2-digit", minute: "2-digit", hourCycle: "h23" };
    var tz = document.documentElement.getAttribute("data-tz");
    try {
      return date.toLocaleTimeString("en-GB", tz ? Object.assign({ timeZone: tz }, options) : options);
    } catch (e) {
      return date.toLocaleTimeString("en-GB", options);
    }
  }

  // Keep this page as it stands for offline use (one copy per address).
  function keepPage() {
    if (!window.caches || !("serviceWorker" in navigator)) return;
    if (document.body.hasAttribute("data-forget-pages") || offlineNow()) return;
    var html = document.documentElement.cloneNode(true);
    html.removeAttribute("data-offline-copy");
    // A note over the page belongs to that moment, not to the copy shown offline later.
    var kept = html.querySelector("#tap-note");
    if (kept) {
      kept.hidden = true; kept.textContent = "";
      kept.removeAttribute("data-send-again"); kept.removeAttribute("data-busy");
    }
    html.querySelectorAll(".arming").forEach(function (el) { el.classList.remove("arming"); });
    html.querySelectorAll(".tap-shield").forEach(function (el) { el.remove(); });
    html.setAttribute("data-kept-at", clock(new Date()));
    var body = "<!doctype html>\n" + html.outerHTML;
    caches.open("pages-v1").then(function (c) {
      return c.put(location.href, new Response(body, { headers: { "Content-Type": "text/html; charset=utf-8" } }));
    }).catch(function () { /* storage full or refused: the network copy still works */ });
  }

  // Offline: the browser says so, or this page is the kept copy the service worker served because
  // the network failed (sw.js marks it), until an answer from the server comes.
  function offlineNow() {
    return navigator.onLine === false || document.documentElement.hasAttribute("data-offline-copy");
  }

  document.addEventListener("DOMContentLoaded", function () {
    showOffline(offlineNow());
    var kept = document.documentElement.getAttribute("data-kept-at");
    var when = document.getElementById("offline-when");
    if (kept && when) when.textContent = " " + (when.getAttribute("data-say-at") || "at {time}").replace("{time}", kept);
    document.querySelectorAll("input[data-browser-tz]").forEach(function (el) {
      try { el.value = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { /* keep the default */ }
    });
    // On the login page (after logging out): forget the pages kept.
    if (document.body.hasAttribute("data-forget-pages") && window.caches) caches.delete("pages-v1");
    // A refused form's field to fix (autofocus) is brought into view; the browser only focuses it.
    var fix = document.querySelector("form [autofocus]");
    if (fix) { fix.focus(); fix.scrollIntoView({ block: "nearest", behavior: "instant" }); }
  });
  window.addEventListener("online", function () {
    showOffline(false, 1);
    // A lost tap's message, told again (no shorter: what is below it stays put)
    document.querySelectorAll("p[data-back]").forEach(function (p) {
      var h = p.offsetHeight;
      p.style.minHeight = h + "px";
      p.textContent = said(p.getAttribute("data-back"));
      p.removeAttribute("data-back");
      if (p.offsetHeight > h) window.scrollBy({ top: p.offsetHeight - h, behavior: "instant" });
      // and over the page too, if it was shown there
      var shown = document.getElementById("tap-note");
      if (shown && !shown.hidden) note(p.textContent, 6000, true);
    });
  });
  // Closed by a tap, the bar takes the page up with it: a second tap of a double tap, on what
  // came under the finger (the header's Games), is ignored.
  var barClosed = 0;
  document.addEventListener("click", function (e) {
    if (Date.now() - barClosed < 700) { e.preventDefault(); e.stopPropagation(); return; }
    if (back === null || !banner.contains(e.target)) return;
    if (document.documentElement.hasAttribute("data-offline-copy")) location.reload();
    else { barClosed = Date.now(); showOffline(false); }
  }, true);
  window.addEventListener("scroll", function () {
    if (back !== null && window.scrollY >= banner.offsetHeight) showOffline(false, 1);
  }, { passive: true });
  window.addEventListener("offline", function () { showOffline(true, 1); });

  // After an entry, undo or correction: the outcome (the last round's end, a message) and the
  // next action must be in view without scrolling, and read out by the live region: what this
  // tap did, what changed the game ("The game moved on. Last entry, by …"), the round's news,
  // then what comes next or the game's end (a div.msg), in that order whatever the layout. The
  // news only when it is new (not after an undo, a refusal, a mode picked: [data-old-news],
  // views/games.py render_game). A .say is an offer to read with what comes next (Mia's reversal).
  function showOutcome(panel, quiet) {
    var live = document.getElementById("outcome");
    if (live) {
      var parts = [], read = [];
      [".done", "p.msg:not([role=alert])", panel.hasAttribute("data-old-news") ? null : ".news", ".msg:not([role=alert]), .say, .now"].forEach(function (sel) {
        if (sel) panel.querySelectorAll(sel).forEach(function (el) {
          // Read once (the game's end is a .now in a .msg).
          if (read.some(function (outer) { return outer.contains(el); })) return;
          read.push(el);
          parts.push(el.textContent.replace(/\s+/g, " ").trim());
        });
      });
      live.textContent = parts.join(" ");
    }
    if (!quiet) nextInView(panel);
  }
  function nextInView(panel) {
    var now = panel.querySelector(".now") || panel;
    var top = panel.getBoundingClientRect().top;
    if (top < 0 || now.getBoundingClientRect().bottom > window.innerHeight) {
      panel.scrollIntoView({ block: "start", behavior: "instant" });
    }
    // The next action's controls too, as far as they fit, keeping the outcome in view; then Undo
    // under them, keeping the glance in view as well (Undo was below a 390x844 screen as a round
    // ended, with the round's news above the pad; found by a review), unless the pad's first line
    // says what the glance does (Mia's claim: data-told-in-pad).
    keepPadInView(panel);
  }
  // A phone following another's entries, its pad on the screen: the pad (and Undo) stay on it as
  // the round's news comes in above them, as far as the news stays in view (the pad went below a
  // 390x844 screen as a round ended; found by a review), and as the news goes. A phone whose
  // person scrolled away from the pad keeps its place.
  var following = false, nowWas = null;
  function padInView(panel) {
    var forms = Array.prototype.filter.call(panel.querySelectorAll("form.entry"), function (f) {
      return !f.closest("details:not([open])");
    });
    return forms.length > 0 && forms.every(function (f) {
      var r = f.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= window.innerHeight;
    });
  }
  // The turn's line slid up off the screen (the news above it went: a second review): it goes
  // back to where it was; then down only, as far as the pad needs.
  function followPad(panel) {
    var now = panel.querySelector(".now"), top = now ? now.getBoundingClientRect().top : 0;
    if (nowWas !== null && nowWas >= 0 && top < 0) window.scrollBy({ top: top - nowWas, behavior: "instant" });
    newsInView(panel);
    keepPadInView(panel);
  }
  // The round's news above the screen (a phone scrolled down to a tall pad, Mia's: reviews found
  // "loses 1 life" off its top) comes down into view, its top at the screen's; then the pad as
  // far as it leaves room.
  function newsInView(panel) {
    var news = panel.querySelector(".news"), top = news ? news.getBoundingClientRect().top : 0;
    if (top < 0) window.scrollBy({ top: top, behavior: "instant" });
  }
  // A phone whose person reads below the pad (the scores, the last entries) keeps what they read
  // where it was as another phone's entry changes the pad above it (a review: the scores table
  // went up 200 px, the page to its bottom; the browser's own scroll anchoring loses its anchor
  // as the panel is replaced).
  var readingWas = null;
  function readingAt(panel) {
    var found = null;
    ["table.scores", "ol.log"].some(function (sel) {
      var el = panel.querySelector(sel), r = el && el.getBoundingClientRect();
      if (r && r.top < window.innerHeight && r.bottom > 0) found = [sel, r.top];
      return !!found;
    });
    return found;
  }
  function keepReading(panel) {
    var el = panel.querySelector(readingWas[0]);
    if (el) window.scrollBy({ top: el.getBoundingClientRect().top - readingWas[1], behavior: "instant" });
  }
  function keepPadInView(panel) {
    var now = panel.querySelector(".now") || panel;
    below(panel, "form.entry", ".news, .msg, .now", now);
    below(panel, ".undo-redo", ".news, .msg, .now, .glance:not([data-told-in-pad])", now);
  }
  function below(panel, bring, keepIn, now) {
    var bottom = 0;
    panel.querySelectorAll(bring).forEach(function (f) {
      if (!f.closest("details:not([open])")) bottom = Math.max(bottom, f.getBoundingClientRect().bottom);
    });
    var keep = Math.min.apply(null, Array.prototype.map.call(panel.querySelectorAll(keepIn), function (el) {
      return el.getBoundingClientRect().top;
    }).concat([now.getBoundingClientRect().top]));
    var need = bottom - window.innerHeight + 8;
    if (need > 0 && keep > 0) window.scrollBy({ top: Math.min(need, keep), behavior: "instant" });
  }
  window.addEventListener("DOMContentLoaded", function () {
    // A page loaded after a change without htmx (a correction) too. A game page just opened on
    // a small phone has the next action's buttons in view as well, as after each entry (the
    // first turn's send buttons were below a 320x640 screen; found by a review).
    var panel = document.getElementById("panel");
    if (panel && panel.querySelector(".msg")) showOutcome(panel);
    else if (panel && panel.querySelector("form.entry") && !location.hash && window.scrollY === 0) nextInView(panel);
  });

  // A new panel ignores taps a moment: a double tap must not make the next player's entry;
  // 2 s when a poll brings it while this phone's entry found no connection.
  var unsent = false, polledIn = false;
  // Guarded from the moment it is in the page: htmx runs its load event only as the swap settles
  // (20 ms on), and a double tap's second landed in between on the new Undo (found by a review).
  // This phone's own change, answered: only a tap where the sending tap was is ignored (a double
  // tap's second), and the note says the first counted; any other tap counts (the whole panel
  // ignored the next die tapped at once, 300 to 600 ms after sending; a review). A clear shield of
  // 48 px over that spot takes such a tap: not the controls near it, of which a big one tapped at
  // its middle, 86 px away, was ignored too (a second review).
  var pressed = null, sentFrom = null;
  function lastPress() { return pressed && Date.now() - pressed.at < 1000 ? pressed : null; }
  document.addEventListener("pointerdown", function (e) { pressed = { x: e.clientX, y: e.clientY, at: Date.now() }; }, true);
  document.addEventListener("htmx:beforeRequest", function (e) {
    if (!isPoll(e)) sentFrom = lastPress();
  });
  document.addEventListener("htmx:afterSwap", function (e) {
    var fresh = e.target;
    if (!fresh || fresh.id !== "panel") return;
    fresh.classList.add("arming");
    if (isPoll(e) || !e.detail.xhr) return;
    // Refused as another phone came first: a tap now is told the game moved on, not to tap again
    // (that tap would be the next player's; a review).
    if (e.detail.xhr.status === 409) fresh.setAttribute("data-moved", "");
    if (e.detail.xhr.status !== 200) return;
    fresh.setAttribute("data-answered", "");
    if (!sentFrom) return;
    var shield = document.createElement("div");
    shield.className = "tap-shield";
    shield.style.left = sentFrom.x - 24 + "px";
    shield.style.top = sentFrom.y - 24 + "px";
    fresh.appendChild(shield);
  });
  document.addEventListener("htmx:load", function (e) {
    var fresh = e.target;
    if (!fresh || fresh.id !== "panel") return;
    fresh.classList.add("arming");
    var moved = polledIn && unsent;
    if (polledIn && !unsent) fresh.setAttribute("data-polled", "");  // another phone's change: no scroll
    polledIn = false;
    if (moved) {
      unsent = false;
      // The game moved on while this phone's entry had no answer (its own entry, answer lost, or
      // another phone's): the note asking to tap again goes, as that tap would be the next
      // player's (it stayed over the new panel; found by a review). The panel says what came.
      var shown = document.getElementById("tap-note");
      if (shown && shown.hasAttribute("data-send-again")) { clearTimeout(noteTimer); shown.hidden = true; }
    }
    var ms = parseInt(document.body.getAttribute(moved ? "data-arm-moved-ms" : "data-arm-ms") || (moved ? "2000" : "600"), 10);
    if (moved) fresh.setAttribute("data-moved", "");
    setTimeout(function () {
      fresh.classList.remove("arming");
      fresh.removeAttribute("data-moved");
      fresh.removeAttribute("data-answered");
      var shield = fresh.querySelector(".tap-shield");
      if (shield) shield.remove();
    }, ms);
  });
  document.addEventListener("htmx:afterRequest", function (e) {
    if (isPoll(e) || !e.detail.successful) return;
    unsent = false;
    // A note asking to send again goes once the server has answered (it invited a second tap,
    // which would have made the next player's entry; found by a review).
    var shown = document.getElementById("tap-note");
    if (shown && shown.hasAttribute("data-send-again")) { clearTimeout(noteTimer); shown.hidden = true; }
    // A tap ignored while this one was sent: "still sending" is over once it is answered (it stayed
    // up as the next turn showed, and read as if the entry were lost; found by a review).
    if (shown && shown.hasAttribute("data-busy") && !shown.hidden) {
      shown.removeAttribute("data-busy");
      if (e.detail.xhr && e.detail.xhr.status === 200) note(words("busy-done"));
      else { clearTimeout(noteTimer); shown.hidden = true; }  // refused: the panel says why
    }
  });
  // Any answer from the server: the page is no longer only the kept copy.
  document.addEventListener("htmx:beforeSwap", function (e) {
    var root = document.documentElement;
    if (!e.detail.xhr || !e.detail.xhr.status || !root.hasAttribute("data-offline-copy")) return;
    root.removeAttribute("data-offline-copy");
    showOffline(offlineNow(), 1);
  });
  // A tap then (or while the last one is being sent) is stopped and a note says so.
  var noteTimer;
  // A sentence in the page's language (data-say-<key>: games/_say.html), else none.
  function words(key) {
    var el = document.querySelector("[data-say-" + key + "]");
    return el ? el.getAttribute("data-say-" + key) : "";
  }
  // The words of several keys, one after the other ("back picked").
  function said(keys) {
    return keys.split(" ").map(words).join(" ");
  }
  // sendAgain: the note asks to send an entry again (a connection's message)
  // busy: it says a tap was ignored while the last one was being sent
  function note(text, ms, sendAgain, busy) {
    var el = document.getElementById("tap-note");
    if (!el || !text) return;
    el.textContent = text;
    el.toggleAttribute("data-send-again", !!sendAgain);
    el.toggleAttribute("data-busy", !!busy);
    el.hidden = false;
    clearTimeout(noteTimer);
    noteTimer = setTimeout(function () { el.hidden = true; }, ms || 2500);
  }
  // The forms take no pointer events then (app.css): the tap lands on the panel; the control
  // under the finger tells a missed tap from a stray one.
  function controlAt(panel, x, y) {
    return Array.prototype.some.call(panel.querySelectorAll("form button, form label, form input"), function (el) {
      var r = el.getBoundingClientRect();
      return r.width && x >= r.left && x <= r.right && y >= r.top && y <= r.bottom;
    });
  }
  document.addEventListener("click", function (e) {
    var panel = document.getElementById("panel");
    if (!panel || !panel.contains(e.target)) return;
    var busy = panel.querySelector(".htmx-request:not([data-poll])");
    if (!busy && e.target.className === "tap-shield") {  // a double tap's second (above; said below)
      e.preventDefault();
      e.stopImmediatePropagation();
      return;
    }
    if (!(panel.classList.contains("arming") && !panel.hasAttribute("data-answered")) && !busy) return;
    // A link or control outside the forms (mode, owner, Lead the men) takes the tap.
    if (e.target.closest("a, button, summary, label, input") || !controlAt(panel, e.clientX, e.clientY)) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    note(words(busy ? "busy" : panel.hasAttribute("data-moved") ? "moved" : "early"), 0, false, !!busy);
  }, true);

  // Said as the finger lifts from the shield: a tap pressed as the old panel went makes no click
  // there (a playtest saw no note).
  document.addEventListener("pointerup", function (e) {
    var panel = document.getElementById("panel");
    if (panel && e.target.className === "tap-shield" && controlAt(panel, e.clientX, e.clientY)) note(words("busy-done"));
  }, true);

  // A pick (a radio: a die, Mia's announced value) whose form goes on below the screen: the rest of
  // the form comes up, as far as the picked step's top stays in view (Mia's quick entry at 320x640:
  // the cup's dice were below the screen after every round; a review). A double tap's second, which
  // would land on what slid under the finger, is ignored and said so: one close to the first, soon
  // after it (250 ms: a die the slide put under the finger, tapped on purpose 300 ms on, counts).
  // Any other tap counts (a lock on the whole panel dropped quick next picks; a review).
  var slid = null;
  document.addEventListener("change", function (e) {
    var input = e.target, panel = document.getElementById("panel");
    if (!panel || input.type !== "radio" || !input.closest("form.entry") || !panel.contains(input)) return;
    var step = input.closest("fieldset") || input;
    var need = Math.floor(input.closest("form.entry").getBoundingClientRect().bottom - window.innerHeight + 8);
    var keep = Math.floor(step.getBoundingClientRect().top);
    if (need < 1 || keep < 1) return;
    var was = window.scrollY, from = lastPress();
    pressed = null;
    window.scrollBy({ top: Math.min(need, keep), behavior: "instant" });
    if (from && Math.abs(window.scrollY - was) >= 1) slid = { x: from.x, y: from.y, at: Date.now() };
  });
  document.addEventListener("click", function (e) {
    var first = slid;
    if (!first || !e.isTrusted) return;
    slid = null;
    if (Date.now() - first.at > 250 || Math.abs(e.clientX - first.x) > 24 || Math.abs(e.clientY - first.y) > 24) return;
    if (!e.target.closest || !e.target.closest("#panel form")) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    note(words("slid"), 1500);
  }, true);

  // A fold opened by a tap ("Lead the men") shows its buttons; one open as the panel arrives stays put.
  var opening = null;
  document.addEventListener("click", function (e) {
    var summary = e.target.closest && e.target.closest("details.lead > summary");
    opening = summary ? summary.parentNode : null;
  }, true);
  document.addEventListener("toggle", function (e) {
    if (e.target !== opening || !opening.open) return;
    opening = null;
    if (e.target.scrollIntoView) e.target.scrollIntoView({ block: "nearest" });
  }, true);

  // A key or switch user's focus, on the control sent from, goes with the old panel: it is given to
  // the new panel's first control (it fell to the page's body, and Tab went past the panel; found
  // by a review). Only this phone's own sending, and only when the focus was in the panel.
  var focusWasIn = false;
  document.addEventListener("htmx:configRequest", function (e) {
    var panel = document.getElementById("panel"), a = document.activeElement;
    if (!isPoll(e)) focusWasIn = !!(panel && a && a !== panel && panel.contains(a));
  });
  function refocus(panel) {
    if (!focusWasIn) return;
    focusWasIn = false;
    focusFirst(panel);
  }
  // Unless the focus is still somewhere on the page: the panel's first control on the screen.
  function focusFirst(panel) {
    var a = document.activeElement;
    if (a && a !== document.body && document.contains(a)) return;
    var next = Array.prototype.find.call(panel.querySelectorAll(
      "form input:not([type=hidden]):not([disabled]), form button:not([disabled])"), function (el) {
      return el.getClientRects().length > 0;
    });
    if (next) give(panel, next);
  }
  // The focus goes to a control, unless Enter there would send an entry at once (a button of an
  // entry form with nothing left to pick: "Run with the mice", a penalty): a second Enter meant for
  // the control sent from recorded it for the next player (a playtest). The line saying what comes
  // next (.now) takes the focus then; Tab goes on to the controls. A die to pick (a radio) sends
  // nothing, nor does a button whose form still wants a pick (a tie-break's second die).
  function give(panel, el) {
    var now = panel.querySelector(".now");
    if (el.tagName === "BUTTON" && el.form && el.form.classList.contains("entry") && now &&
        el.form.checkValidity()) {
      now.setAttribute("tabindex", "-1");
      el = now;
    }
    el.focus({ preventScroll: true });
  }
  // Another phone's entry replaces the panel under a key user's focus too: it goes to the same
  // control in the new panel (the same face, Undo, the same entry's "correct"), else to the new
  // panel's first control, without scrolling (a playtest: it fell to the page's body).
  var pollFocus = null;
  function focusKey(el) {
    var key = { tag: el.tagName, name: el.getAttribute("name"), value: el.getAttribute("value"),
                href: el.getAttribute("href") };
    if (key.name === null && key.href === null) key.cls = el.className;  // Undo, Redo: their words change
    return key;
  }
  function keepFocus(panel) {
    var key = pollFocus;
    pollFocus = null;
    var a = document.activeElement;
    if (!key || (a && a !== document.body && document.contains(a))) return;
    function usable(el) { return !el.disabled && el.getClientRects().length > 0; }
    var same = Array.prototype.find.call(panel.getElementsByTagName(key.tag), function (el) {
      return el.getAttribute("name") === key.name && el.getAttribute("value") === key.value &&
        el.getAttribute("href") === key.href && (key.cls === undefined || el.className === key.cls) && usable(el);
    });
    // The same choice made another way: a face to pick (a radio) is a face that sends (a button)
    // in a tie-break, and back (a playtest: focus went to the first die's 1).
    if (!same && key.name !== null) {
      same = Array.prototype.find.call(panel.querySelectorAll("input, button"), function (el) {
        return el.getAttribute("name") === key.name && el.getAttribute("value") === key.value && usable(el);
      });
    }
    if (same) give(panel, same);
    else focusFirst(panel);
  }

  document.addEventListener("htmx:afterSettle", function () {
    var panel = document.getElementById("panel");
    if (panel && panel.classList.contains("arming")) {
      if (back !== null && !panel.hasAttribute("data-polled")) showOffline(false);
      showOutcome(panel, panel.hasAttribute("data-polled"));
      if (!panel.hasAttribute("data-polled")) refocus(panel);
      else {
        keepFocus(panel);
        if (following) followPad(panel);
        else if (readingWas) keepReading(panel);
      }
      following = false;
      readingWas = null;
    }
    keepPage();
  });

  // An entry that could not be sent stays selected on screen, to send again.
  // A poll's answer never replaces a panel that is newer, or one whose entry is on its way:
  // the scorer's own tap decides what this phone shows next.
  document.addEventListener("htmx:beforeSwap", function (e) {
    if (!isPoll(e) || !e.detail.xhr) return;
    var panel = document.getElementById("panel");
    if (!panel) return;
    if (panel.classList.contains("htmx-request") || panel.querySelector(".htmx-request:not([data-poll])")) {
      e.detail.shouldSwap = false;
      return;
    }
    var m = /data-version="(\d+)"/.exec(e.detail.xhr.responseText || "");
    if (!m) return;  // no panel: nothing changed (204), or a message
    var shown = parseInt(panel.getAttribute("data-version") || "-1", 10);
    if (parseInt(m[1], 10) <= shown) e.detail.shouldSwap = false;
    else {
      picked = pickedIn(panel);  // taken as this answer replaces the panel, used by its htmx:load
      polledIn = true;
      var a = document.activeElement;
      pollFocus = a && a !== panel && panel.contains(a) ? focusKey(a) : null;
      following = padInView(panel);
      readingWas = following ? null : readingAt(panel);
      var now = panel.querySelector(".now");
      nowWas = now ? now.getBoundingClientRect().top : null;
    }
  });

  // A reveal refused because another phone's change came first (409: nothing recorded) keeps its
  // player and dice while that player is still to reveal: one more tap sends it (they were
  // cleared, to be picked again from the start; found by a review). Other entries' picks go with
  // a refusal: the dice may no longer be the scorer's (test_live_browser).
  document.addEventListener("htmx:beforeSwap", function (e) {
    if (isPoll(e) || !e.detail.xhr || e.detail.xhr.status !== 409) return;
    var panel = document.getElementById("panel");
    // (a 409 that is no panel, a practice game's refusal, comes from a page with no reveal form)
    if (panel) picked = pickedIn(panel, true);
  });

  // Dice picked, not sent, stay picked when a poll's panel asks for the same entry (position in
  // the log, type, player): another phone corrected an older entry. A form with data-keep (a
  // showdown's reveal) is the same entry at any position, and keeps its picks only with the
  // player they were picked for, while that player is still to choose (a radio) or the one named
  // (hidden): another phone's reveal of someone else must not lose them, nor give them to another.
  // All or none.
  var picked = null;
  function hidden(form, name) {
    var el = form.querySelector('input[type=hidden][name="' + name + '"]');
    return el ? el.value : "";
  }
  function slot(form) {
    return form.getAttribute("data-keep") || [form.getAttribute("data-seq"), hidden(form, "type"), hidden(form, "player")].join("|");
  }
  // keptOnly: only forms with data-keep (a showdown's reveal)
  // [[name, value]] of a form's picked radios
  function checkedIn(form) {
    return Array.prototype.map.call(form.querySelectorAll("input[type=radio]:checked"), function (el) {
      return [el.name, el.value];
    });
  }
  function pickedIn(panel, keptOnly) {
    var out = {};
    panel.querySelectorAll(keptOnly ? "form.entry[data-keep]" : "form.entry[data-seq]").forEach(function (form) {
      var checked = checkedIn(form);
      if (form.hasAttribute("data-keep")) {
        if (hidden(form, "player")) checked.push(["player", hidden(form, "player")]);
        if (!checked.some(function (pick) { return pick[0] === "player"; })) return;
      }
      if (checked.length) out[slot(form)] = checked;
    });
    return out;
  }
  document.addEventListener("htmx:load", function (e) {
    var fresh = e.target, keep = picked;
    if (!fresh || fresh.id !== "panel") return;
    picked = null;
    if (!keep) return;
    fresh.querySelectorAll("form.entry[data-seq]").forEach(function (form) {
      var radios = Array.prototype.slice.call(form.querySelectorAll("input[type=radio]"));
      var found = (keep[slot(form)] || []).map(function (pick) {
        if (hidden(form, pick[0]) === pick[1]) return true;  // named by the form itself
        return radios.filter(function (el) { return el.name === pick[0] && el.value === pick[1]; })[0];
      });
      if (found.length && found.every(Boolean)) {
        found.forEach(function (el) { if (el !== true) el.checked = true; });
      }
    });
  });

  // Mia's quick entry: the cup owner is a link that loads the panel again. What was picked below
  // it (the announced value, the cup's first die) stays picked: the same choices follow whoever
  // owns the cup, and a table taps the value it heard first (found by a review).
  var ownerPicks = null;
  document.addEventListener("htmx:beforeSwap", function (e) {
    var elt = (e.detail.requestConfig || {}).elt;
    var form = document.querySelector("#panel form.entry[data-seq]");
    if (!elt || !elt.closest || !elt.closest(".mia-owner") || !form || e.detail.xhr.status !== 200) return;
    ownerPicks = checkedIn(form);
  });
  document.addEventListener("htmx:load", function (e) {
    var keep = ownerPicks;
    if (!e.target || e.target.id !== "panel" || !keep) return;
    ownerPicks = null;
    var form = e.target.querySelector("form.entry[data-seq]");
    if (!form) return;
    keep.forEach(function (pick) {
      form.querySelectorAll("input[type=radio]").forEach(function (el) {
        if (el.name === pick[0] && el.value === pick[1]) el.checked = true;
      });
    });
  });

  // A failed poll only shows the banner; the next one retries.
  document.addEventListener("htmx:sendError", function (e) {
    showOffline(offlineNow(), 1);
    if (isPoll(e)) return;
    unsent = true;
    var change = noDice(e) + picks(e);
    say(said("offline" + change), "back" + change);
  });
  document.addEventListener("htmx:responseError", function (e) {
    if (isPoll(e)) return;
    if (e.detail.xhr && e.detail.xhr.status >= 500) {
      unsent = true;
      say(said("server" + noDice(e) + picks(e)).replace("{status}", e.detail.xhr.status));
    }
  });
  // Dice or values picked on the form that sent (for a link, Mia's cup owner or mode, on the
  // panel's forms): they stay picked, and the note says so (" picked" adds that sentence). An entry
  // of one tap (Join, Run, Pass, a penalty) picked none: its note spoke of dice all the same (a
  // playtest).
  function picks(e) {
    var elt = e.detail && e.detail.elt;
    var scope = (elt && elt.closest && elt.closest("form")) || document.getElementById("panel");
    return scope && scope.querySelector("input[type=radio]:checked") ? " picked" : "";
  }
  // Undo, Redo, a practice game's moves (roll, next) and a link that only shows the panel again
  // (Mia's cup owner, its entry mode): no entry to send again, so their notes say none ("-change"
  // words; a playtest: an owner tapped offline was told of an entry).
  function noDice(e) {
    var config = e.detail.requestConfig || {};
    var shown = String(config.verb || "").toLowerCase() === "get";
    return shown || /\/(undo|redo|roll|next)$/.test(config.path || "") ? "-change" : "";
  }

  // A page kept offline may hold an ended session's CSRF token: on SK-CSRF-Refused, take a fresh
  // token and send the request once more; a second refusal shows.
  function freshToken(token) {
    var headers = {};
    try { headers = JSON.parse(document.body.getAttribute("hx-headers") || "{}"); } catch (e) { /* replace */ }
    headers["X-CSRFToken"] = token;
    document.body.setAttribute("hx-headers", JSON.stringify(headers));
    document.querySelectorAll("input[name=csrf_token]").forEach(function (el) { el.value = token; });
  }
  document.addEventListener("htmx:beforeSwap", function (e) {
    var xhr = e.detail.xhr, cfg = e.detail.requestConfig;
    if (!xhr || xhr.status !== 400 || xhr.getResponseHeader("SK-CSRF-Refused") !== "1") return;
    if (!cfg || !window.htmx || (cfg.headers && cfg.headers["SK-Resent"])) return;
    e.detail.shouldSwap = false;
    var values = {};
    if (cfg.formData) {
      cfg.formData.forEach(function (value, key) {
        if (key in values) values[key] = [].concat(values[key], value); else values[key] = value;
      });
    }
    fetch("/csrf-token", { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.ok ? r.json() : Promise.reject(r.status); })
      .then(function (data) {
        freshToken(data.token);
        if ("csrf_token" in values) values.csrf_token = data.token;
        return window.htmx.ajax(cfg.verb, cfg.path, {
          source: cfg.elt, target: cfg.target, values: values, headers: { "SK-Resent": "1", "X-CSRFToken": data.token }
        });
      })
      .catch(function () {
        say(words("stale"));
      });
  });

  if ("serviceWorker" in navigator) {
    window.addEventListener("load", function () {
      navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function () { /* the app works without it */ });
      navigator.serviceWorker.ready.then(function () { setTimeout(keepPage, 0); });
    });
  }
})();
