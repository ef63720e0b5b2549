// Confirmation, denied, cancelled and expired cards on the /agent page (DESIGN §6, §9).
// Cards are rendered by the server; this file places them, wires their buttons and measures paint time.
"use strict";
(function (global) {
  let container = null;
  let send = null;
  const renderTimes = [];

  function cardById(attr, id) {
    return container.querySelector(`[${attr}="${id}"]`);
  }

  function entryFor(html) {
    const wrap = document.createElement("div");
    wrap.className = "entry card";
    wrap.innerHTML = html;
    return wrap;
  }

  /** Record frame-arrival → paint time of a card (two animation frames ≈ the first paint after insertion). */
  function measure(started, id) {
    requestAnimationFrame(() => requestAnimationFrame(() => {
      const ms = performance.now() - started;
      renderTimes.push(ms);
      try { performance.measure(`card-render-${id}`, { start: started, end: started + ms }); } catch (e) { /* old API */ }
      document.body.dataset.cardsPainted = String(renderTimes.length);
    }));
  }

  /** Show a card frame (confirm_required, permission_denied, cancelled); a re-sent card replaces its old copy. */
  function show(frame) {
    const started = performance.now();
    const id = frame.confirmation_id;
    const existing = id != null ? cardById("data-confirmation-id", id) : null;
    const entry = entryFor(frame.html);
    if (existing) {
      existing.closest(".entry").replaceWith(entry);
    } else {
      container.appendChild(entry);
    }
    container.scrollTop = container.scrollHeight;
    measure(started, id != null ? id : frame.call_id);
    return entry;
  }

  function decide(card, decision) {
    const typed = card.querySelector("[data-role=typed-env]");
    // Ticked options of the card (issue 28: e.g. delete the charts a deploy leaves on no dashboard).
    const options = decision === "approve"
      ? Array.from(card.querySelectorAll("input[data-option]:checked")).map((box) => box.dataset.option)
      : [];
    card.querySelectorAll("button, input[data-option]").forEach((b) => { b.disabled = true; });
    card.dataset.state = decision === "approve" ? "approving" : "denying";
    send({
      type: "confirm",
      confirmation_id: Number(card.dataset.confirmationId),
      decision: decision,
      typed_env: typed ? typed.value.trim() : null,
      options: options,
    });
  }

  function onClick(ev) {
    const button = ev.target.closest("[data-action]");
    if (!button) return;
    const card = button.closest("[data-card]");
    if (!card) return;
    const action = button.dataset.action;
    if (action === "approve" || action === "deny") decide(card, action);
    if (action === "dismiss") {
      if (card.dataset.cardId) send({ type: "dismiss", confirmation_id: Number(card.dataset.cardId) });
      button.disabled = true;
      card.dataset.state = "dismissed";
    }
  }

  function onInput(ev) {
    const input = ev.target.closest("[data-role=typed-env]");
    if (!input) return;
    const card = input.closest("[data-card]");
    const approve = card.querySelector("[data-action=approve]");
    approve.disabled = input.value.trim() !== card.dataset.env;
  }

  function attach(messagesEl, sendFn) {
    container = messagesEl;
    send = sendFn;
    container.addEventListener("click", onClick);
    container.addEventListener("input", onInput);
  }

  global.AgentCards = { attach: attach, show: show, renderTimes: renderTimes };
})(window);
