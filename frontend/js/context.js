// UIContext v1 from the /agent URL (DESIGN §7). Built once per page load; only envId changes later.
"use strict";
(function (global) {
  const OBJECT_TYPES = ["dashboard", "dataset", "migration"];
  const KEYS = ["objectType", "objectId", "objectName", "envId", "route"];

  /** Build a UIContext from URLSearchParams; null when the URL names no object and no environment.
   *  An unknown objectType becomes null (the server would reject it with 422). */
  function buildUIContext(params) {
    if (!KEYS.some((k) => params.has(k))) return null;
    const get = (k) => (params.get(k) === null || params.get(k) === "" ? null : params.get(k));
    const objectType = OBJECT_TYPES.includes(get("objectType")) ? get("objectType") : null;
    return {
      contextVersion: 1,
      objectType: objectType,
      objectId: objectType ? get("objectId") : null,
      objectName: objectType ? get("objectName") : null,
      envId: get("envId"),
      route: get("route"),
    };
  }

  global.AgentContext = { buildUIContext: buildUIContext, OBJECT_TYPES: OBJECT_TYPES };
})(window);
