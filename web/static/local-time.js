// The league site's one script: each <time datetime="..."> written in UTC is shown in the
// visitor's own time zone. Without it the page reads the same, in UTC.
(function () {
  "use strict";
  function local() {
    var zone = "";
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { zone = ""; }
    document.querySelectorAll("time[datetime]").forEach(function (el) {
      var at = new Date(el.getAttribute("datetime"));
      if (isNaN(at.getTime())) { return; }
      el.title = el.textContent;
      el.textContent = at.toLocaleString(undefined, {
        weekday: "short", day: "numeric", month: "short", year: "numeric",
        hour: "2-digit", minute: "2-digit"
      });
    });
    document.querySelectorAll(".tz").forEach(function (el) {
      if (zone) { el.textContent = zone; }
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", local);
  } else {
    local();
  }
})();
