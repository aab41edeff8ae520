// An item's tabs (Formulations, Answers, Answer branches) count their rows while they are filled in: a
// stored row counts unless it is marked for deletion, a new row once its text is typed.
(function () {
  "use strict";

  function label(prefix) {
    const tab = document.querySelector(`a[href="#${prefix}"]`);
    return tab ? tab.querySelector("span.rounded-default") : null;
  }

  function rows(group) {
    return Array.from(group.querySelectorAll(".form-group, .inline-related")).filter(
      (row) => !row.classList.contains("empty-form") && !row.querySelector('[name*="__prefix__"]')
    );
  }

  function counts(row) {
    const deleted = row.querySelector('input[type=checkbox][name$="-DELETE"]');
    if (deleted && deleted.checked) return false;
    const id = row.querySelector('input[type=hidden][name$="-id"]');
    if (id && id.value) return true;
    const text = row.querySelector('textarea[name$="-text"], input[name$="-text"]');
    return Boolean(text && text.value.trim());
  }

  function refresh() {
    document.querySelectorAll("[data-inline-formset]").forEach((formset) => {
      let data = {};
      try {
        data = JSON.parse(formset.dataset.inlineFormset);
      } catch (error) {
        return;
      }
      const prefix = data.options && data.options.prefix;
      const target = prefix && label(prefix);
      if (!target) return;
      const group = document.getElementById(`${prefix}-group`) || formset;
      target.textContent = String(rows(group).filter(counts).length);
      target.dataset.liveCount = "1";
    });
  }

  let pending = null;
  function soon() {
    clearTimeout(pending);
    pending = setTimeout(refresh, 50);
  }
  ["input", "change", "formset:added", "formset:removed"].forEach((name) => document.addEventListener(name, soon));
  document.addEventListener("DOMContentLoaded", refresh);
})();
