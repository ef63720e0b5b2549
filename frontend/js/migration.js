// The migration page: progress of its running runs (tasks.js polls GET /api/agent/tasks/<id>/); when one ends the
// page reloads once so the plan's status and each dashboard's outcome come from the server.
"use strict";
(function () {
  const anchors = [...document.querySelectorAll("[data-track-task]")];
  const boxes = anchors.map((el) => window.AgentTasks.track(Number(el.dataset.trackTask), el));
  if (!boxes.length) return;
  const timer = setInterval(() => {
    if (boxes.some((box) => box.dataset.state === "succeeded" || box.dataset.state === "failed")) {
      clearInterval(timer);
      window.location.reload();
    }
  }, 500);
})();
