// Every endpoint of the published interface, method + path template exactly as the spec's tables
// write them. coverage.test.ts checks this list against the spec and against the tests' covers().

export const ENDPOINTS = [
  // API keys
  'GET /api-key',
  'POST /api-key/generate',
  // Workspaces
  'GET /workspaces',
  'GET /workspaces/{id}',
  'POST /workspaces',
  'PUT /workspaces/{id}',
  'DELETE /workspaces/{id}',
  // Workspace members
  'GET /workspace-members/{workspaceId}',
  'POST /workspace-members/{workspaceId}',
  'PUT /workspace-members/{workspaceId}/{userId}',
  'DELETE /workspace-members/{workspaceId}/{userId}',
  'POST /workspace-members/{workspaceId}/accept',
  'POST /workspace-members/{workspaceId}/decline',
  // Modules
  'GET /modules/{workspaceId}',
  'POST /modules/{workspaceId}',
  'PUT /modules/{moduleId}',
  'DELETE /modules/{moduleId}',
  // Collections
  'GET /collections/{moduleId}',
  'POST /collections/{moduleId}',
  'PUT /collections/{collectionId}',
  'DELETE /collections/{collectionId}',
  // Records
  'GET /records/{collectionId}',
  'POST /records/{collectionId}',
  'GET /records/{recordId}/sub-records',
  'POST /records/{recordId}/sub-records',
  'PUT /records/{recordId}',
  'DELETE /records/{recordId}',
  // Record values
  'GET /record-values/{recordId}',
  'GET /record-values/references/{moduleId}',
  'POST /record-values',
  'PUT /record-values/{recordValueId}',
  'DELETE /record-values/{recordValueId}',
  // Columns
  'GET /columns/{moduleId}',
  'POST /columns/{moduleId}',
  'PUT /columns/{columnId}',
  'DELETE /columns/{columnId}',
  // Amendments
  'GET /amendments/{recordId}',
  'POST /amendments/{recordId}',
  'PUT /amendments/{amendmentId}',
  'DELETE /amendments/{amendmentId}',
  // Automations
  'GET /automations/{moduleId}',
  'GET /automations/workspace/{workspaceId}',
  'POST /automations/{moduleId}',
  'POST /automations/workspace/{workspaceId}',
  'PUT /automations/{automationId}',
  'DELETE /automations/{automationId}',
  // Activity
  'GET /activity/{workspaceId}',
  'POST /activity/{workspaceId}/{activityId}/revert',
  // Module access
  'GET /module-access/{workspaceId}/{userId}',
  'PUT /module-access/{workspaceId}/{userId}',
  // Notifications
  'GET /notifications',
  'GET /notifications/unread-count',
  'PATCH /notifications/{id}/read',
  'POST /notifications/read-all',
  'DELETE /notifications/{id}',
] as const;

export type RouteName = (typeof ENDPOINTS)[number];

export const ENDPOINT_SET: ReadonlySet<string> = new Set<string>(ENDPOINTS);

/** Routes the deployed service does not have at all (observed-behaviour.md: Express HTML 404). */
export const ABSENT_IN_OBSERVED: ReadonlySet<RouteName> = new Set<RouteName>([
  'POST /workspace-members/{workspaceId}/accept',
  'POST /workspace-members/{workspaceId}/decline',
  'GET /notifications',
  'GET /notifications/unread-count',
  'PATCH /notifications/{id}/read',
  'POST /notifications/read-all',
  'DELETE /notifications/{id}',
]);

export function splitRoute(route: RouteName): { method: string; template: string } {
  const space = route.indexOf(' ');
  return { method: route.slice(0, space), template: route.slice(space + 1) };
}

/** Names of the `{param}` placeholders of a route, in order. */
export function routeParams(route: RouteName): string[] {
  return [...splitRoute(route).template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
}
