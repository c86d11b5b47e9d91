(function () {
  "use strict";
  function copyText(text, button) {
    function done(ok) {
      button.textContent = ok ? "Copied" : "Select and copy";
      window.setTimeout(function () { button.textContent = "Copy"; }, 1500);
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(false); });
      return;
    }
    var area = document.createElement("textarea");
    area.value = text;
    document.body.appendChild(area);
    area.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    document.body.removeChild(area);
    done(ok);
  }
  document.querySelectorAll("button.copy").forEach(function (button) {
    var target = document.getElementById(button.getAttribute("data-target"));
    if (!target) { return; }
    button.hidden = false;
    button.addEventListener("click", function () { copyText(target.textContent, button); });
  });
  document.querySelectorAll("a[href^='#']").forEach(function (link) {
    link.addEventListener("click", function () {
      var target = document.getElementById(decodeURIComponent(link.hash.slice(1)));
      if (target && target.tagName === "DETAILS") { target.open = true; }
    });
  });
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  });
})();
