/* scorekeeper: the little the pages need beyond htmx. No framework. */
(function () {
  "use strict";
  var banner;

  function showOffline(off) {
    if (!banner) banner = document.getElementById("offline");
    if (!banner) return;
    banner.hidden = !off;
    document.documentElement.classList.toggle("is-offline", off);
  }

  function say(text) {
    var area = document.querySelector("#panel .send-error") || document.getElementById("messages");
    if (!area) return;
    area.innerHTML = "";
    var p = document.createElement("p");
    p.className = "msg error";
    p.setAttribute("role", "alert");
    p.textContent = text;
    area.appendChild(p);
  }

  document.addEventListener("DOMContentLoaded", function () {
    showOffline(!navigator.onLine);
    document.querySelectorAll("input[data-browser-tz]").forEach(function (el) {
      try { el.value = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { /* keep the default */ }
    });
    if (document.body.hasAttribute("data-forget-pages") && navigator.serviceWorker && navigator.serviceWorker.controller) {
      navigator.serviceWorker.controller.postMessage("forget-pages");
    }
  });
  window.addEventListener("online", function () { showOffline(false); });
  window.addEventListener("offline", function () { showOffline(true); });

  // An entry that could not be sent stays selected on screen, to send again.
  document.addEventListener("htmx:sendError", function () {
    showOffline(!navigator.onLine);
    say("Not sent: no connection. Nothing was recorded; your entry is still selected, tap again to send it.");
  });
  document.addEventListener("htmx:responseError", function (e) {
    if (e.detail.xhr && e.detail.xhr.status >= 500) {
      say("Not recorded: the server had a problem (" + e.detail.xhr.status + "). Your entry is still selected; tap again.");
    }
  });

  if ("serviceWorker" in navigator) {
    window.addEventListener("load", function () {
      navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function () { /* the app works without it */ });
    });
  }
})();
