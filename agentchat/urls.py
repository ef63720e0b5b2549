"""URL routes: pages, auth, admin, API. Ids in paths are ``<id:…>`` (``agentchat.context.ids.IdConverter``): one beyond
a 64-bit key is a 404, never a query (issue 31)."""

from django.contrib import admin
from django.urls import include, path, register_converter

from agentchat.context.ids import IdConverter
from agentchat.web import api, exports, health, identities, migrations, policy_preview, views

register_converter(IdConverter, "id")

urlpatterns = [
    path("", views.index, name="index"),
    path("healthz", health.healthz, name="healthz"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/policy-preview/", policy_preview.policy_preview_view, name="policy-preview"),
    path("admin/", admin.site.urls),
    path("dashboards/", views.dashboards, name="dashboards"),
    path("dashboards/<id:dashboard_id>/", views.dashboard, name="dashboard"),
    path("datasets/", views.datasets, name="datasets"),
    path("datasets/<id:dataset_id>/", views.dataset, name="dataset"),
    path("migrations/", migrations.migrations, name="migrations"),
    path("migrations/<id:migration_id>/", migrations.migration, name="migration"),
    path("settings/", views.settings_page, name="settings"),
    path("settings/identities/", identities.identity_api_key_add, name="identity-api-key"),
    path("settings/identities/<id:identity_id>/delete/", identities.identity_delete, name="identity-delete"),
    path("agent", views.agent, name="agent"),
    path("agent/", views.agent),
    path("agent/results/<id:conversation_id>/<str:call_id>.csv", exports.sql_result_csv, name="sql-result-csv"),
    path("api/agent/context/", api.ContextView.as_view(), name="api-context"),
    path("api/agent/tools/", api.ToolsetView.as_view(), name="api-tools"),
    path("api/agent/conversations/", api.ConversationListView.as_view(), name="api-conversations"),
    path("api/agent/conversations/<id:conversation_id>/", api.ConversationView.as_view(), name="api-conversation"),
    path("api/agent/tasks/<id:task_id>/", api.TaskView.as_view(), name="api-task"),
]
