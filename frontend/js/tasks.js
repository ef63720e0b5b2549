// Progress of background tasks (backups, migrations) in the chat: when a tool result carries a task id, poll
// GET /api/agent/tasks/<id>/ and draw a progress bar under the tool line until the task ends (DESIGN §8).
"use strict";
window.AgentTasks = (function () {
  const POLL_MS = 1000;
  const MAX_POLL_MS = 10000;
  const t = window.AgentTexts.t;
  const STATES = { queued: t("task_queued"), running: t("task_running"), succeeded: t("task_succeeded"), failed: t("task_failed") };
  const boxes = new Map();

  function build(taskId) {
    const box = document.createElement("div");
    box.className = "task-progress";
    box.dataset.taskId = String(taskId);
    box.dataset.testid = "task-progress";
    const head = document.createElement("div");
    head.className = "task-head";
    const title = document.createElement("span");
    title.className = "task-title";
    title.textContent = t("task_title", { id: taskId });
    const state = document.createElement("span");
    state.className = "task-state";
    state.dataset.testid = "task-state";
    head.append(title, " · ", state);
    const bar = document.createElement("progress");
    bar.max = 100;
    bar.value = 0;
    bar.dataset.testid = "task-bar";
    const message = document.createElement("div");
    message.className = "task-message";
    message.dataset.testid = "task-message";
    box.append(head, bar, message);
    return box;
  }

  function render(box, data) {
    box.dataset.state = data.state;
    box.querySelector(".task-title").textContent = t("task_title_kind", { id: data.task_id, kind: data.kind_label || data.kind });
    box.querySelector(".task-state").textContent = `${STATES[data.state] || data.state} · ${data.progress} %`;
    box.querySelector("progress").value = data.progress;
    box.querySelector(".task-message").textContent = data.state === "failed" ? data.error : data.message || "";
  }

  function done(state) {
    return state === "succeeded" || state === "failed";
  }

  async function poll(taskId, box, delay) {
    let next = POLL_MS;
    try {
      const resp = await fetch(`/api/agent/tasks/${taskId}/`, { credentials: "same-origin" });
      if (resp.status === 404) {
        box.remove();
        boxes.delete(taskId);
        return;
      }
      if (resp.ok) {
        const data = await resp.json();
        render(box, data);
        if (done(data.state)) return;
      } else {
        next = Math.min(delay * 2, MAX_POLL_MS);
      }
    } catch (e) {
      next = Math.min(delay * 2, MAX_POLL_MS);
    }
    setTimeout(() => poll(taskId, box, next), next);
  }

  // Show the progress of task `taskId` right after `anchor` (the tool line); once per task.
  function track(taskId, anchor) {
    if (boxes.has(taskId)) return boxes.get(taskId);
    const box = build(taskId);
    anchor.insertAdjacentElement("afterend", box);
    boxes.set(taskId, box);
    poll(taskId, box, POLL_MS);
    return box;
  }

  return { track: track };
})();
