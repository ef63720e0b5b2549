"""URL routes: pages, auth, admin, API."""

from django.contrib import admin
from django.urls import include, path

from agentchat.web import api, health, identities, migrations, policy_preview, views

urlpatterns = [
    path("", views.index, name="index"),
    path("healthz", health.healthz, name="healthz"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/policy-preview/", policy_preview.policy_preview_view, name="policy-preview"),
    path("admin/", admin.site.urls),
    path("dashboards/", views.dashboards, name="dashboards"),
    path("dashboards/<int:dashboard_id>/", views.dashboard, name="dashboard"),
    path("datasets/", views.datasets, name="datasets"),
    path("datasets/<int:dataset_id>/", views.dataset, name="dataset"),
    path("migrations/", migrations.migrations, name="migrations"),
    path("migrations/<int:migration_id>/", migrations.migration, name="migration"),
    path("settings/", views.settings_page, name="settings"),
    path("settings/identities/", identities.identity_api_key_add, name="identity-api-key"),
    path("settings/identities/<int:identity_id>/delete/", identities.identity_delete, name="identity-delete"),
    path("agent", views.agent, name="agent"),
    path("agent/", views.agent),
    path("api/agent/context/", api.ContextView.as_view(), name="api-context"),
    path("api/agent/tools/", api.ToolsetView.as_view(), name="api-tools"),
    path("api/agent/conversations/<int:conversation_id>/", api.ConversationView.as_view(), name="api-conversation"),
    path("api/agent/tasks/<int:task_id>/", api.TaskView.as_view(), name="api-task"),
]
