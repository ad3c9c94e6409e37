/* Client-side filters for the report and the matrix: area, status, free text. No network. */
(function () {
  "use strict";
  var items = Array.prototype.slice.call(document.querySelectorAll(".filterable"));
  var area = document.getElementById("f-area");
  var text = document.getElementById("f-text");
  var differs = document.getElementById("f-differs");
  var count = document.getElementById("f-count");
  var boxes = Array.prototype.slice.call(document.querySelectorAll("input[name=status]"));

  function apply() {
    var wantArea = area ? area.value : "";
    var words = text ? text.value.toLowerCase().split(/\s+/).filter(Boolean) : [];
    var statuses = {};
    boxes.forEach(function (b) { statuses[b.value] = b.checked; });
    var onlyDiffers = differs ? differs.checked : false;
    var shown = 0;
    items.forEach(function (el) {
      var ok = (!wantArea || el.dataset.area === wantArea) &&
        (!boxes.length || el.dataset.status.split(" ").some(function (s) { return statuses[s]; })) &&
        (!onlyDiffers || el.dataset.differs === "1") &&
        words.every(function (w) { return el.dataset.text.indexOf(w) !== -1; });
      el.classList.toggle("hidden", !ok);
      if (ok) { shown += 1; }
    });
    if (count) { count.textContent = shown + " of " + items.length + " rules"; }
  }

  function openAll(open) {
    items.forEach(function (el) {
      if (el.tagName === "DETAILS" && !el.classList.contains("hidden")) { el.open = open; }
    });
  }

  [area, text, differs].concat(boxes).forEach(function (el) {
    if (el) { el.addEventListener("input", apply); el.addEventListener("change", apply); }
  });
  var expand = document.getElementById("f-expand");
  var collapse = document.getElementById("f-collapse");
  if (expand) { expand.addEventListener("click", function () { openAll(true); }); }
  if (collapse) { collapse.addEventListener("click", function () { openAll(false); }); }

  function openFromHash() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var el = id ? document.getElementById(id) : null;
    if (el && el.tagName === "DETAILS") { el.open = true; }
  }
  window.addEventListener("hashchange", openFromHash);
  openFromHash();
  apply();
})();

document.querySelectorAll(".curl button.copy").forEach(function (button) {
  button.addEventListener("click", function () {
    var text = button.parentElement.querySelector("pre").textContent;
    if (navigator.clipboard) { navigator.clipboard.writeText(text); button.textContent = "copied"; }
  });
});
