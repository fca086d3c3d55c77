// The reporting queries docs/reporting.md shows and the demo runs: plain SQL over the contract views.
// A test runs every one against the demo database and checks the docs hold them verbatim.

export interface ReportingQuery {
  title: string;
  sql: string;
}

export const REPORTING_QUERIES: ReportingQuery[] = [
  {
    title: 'Open records per owner and status',
    sql: `SELECT m.name AS module,
       COALESCE(u.first_name || ' ' || u.last_name, '(unassigned)') AS owner,
       COALESCE(st.value, '(no status)') AS status,
       COUNT(*) AS open_records
FROM records r
JOIN modules m ON m.id = r.module_id
LEFT JOIN cells st ON st.record_id = r.id
  AND st.column_id = (SELECT id FROM columns WHERE module_id = r.module_id AND scope = 'record' AND type = 'status' ORDER BY position LIMIT 1)
LEFT JOIN cells ow ON ow.record_id = r.id
  AND ow.column_id = (SELECT id FROM columns WHERE module_id = r.module_id AND scope = 'record' AND type = 'person' ORDER BY position LIMIT 1)
LEFT JOIN members u ON u.workspace_id = r.workspace_id AND u.user_id = json_extract(ow.value, '$[0]')
WHERE r.parent_record_id IS NULL AND r.is_completed = 0 AND r.is_archived = 0
GROUP BY 1, 2, 3
ORDER BY 1, 4 DESC;`,
  },
  {
    title: 'Completion per module',
    sql: `SELECT m.name AS module,
       COUNT(*) AS records,
       SUM(r.is_completed) AS completed,
       ROUND(100.0 * SUM(r.is_completed) / COUNT(*), 1) AS percent_done
FROM records r
JOIN modules m ON m.id = r.module_id
WHERE r.parent_record_id IS NULL AND r.is_archived = 0
GROUP BY m.id, m.name
ORDER BY percent_done DESC, module;`,
  },
  {
    title: 'Overdue dates on open records',
    sql: `SELECT m.name AS module, r.name AS record, c.name AS column, v.value AS due
FROM cells v
JOIN columns c ON c.id = v.column_id AND c.type = 'date'
JOIN records r ON r.id = v.record_id
JOIN modules m ON m.id = r.module_id
WHERE r.is_completed = 0 AND r.is_archived = 0
  AND v.value <> '' AND v.value < strftime('%Y-%m-%d', 'now')
ORDER BY v.value;`,
  },
  {
    title: 'Who changed what this week',
    sql: `SELECT COALESCE(u.first_name || ' ' || u.last_name, a.user_id, '(system)') AS who,
       a.action,
       COUNT(*) AS changes
FROM activity a
LEFT JOIN members u ON u.workspace_id = a.workspace_id AND u.user_id = a.user_id
WHERE a.created_at >= strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-7 days')
GROUP BY 1, 2
ORDER BY changes DESC, who;`,
  },
  {
    title: 'Full-text search in amendments',
    sql: `SELECT r.name AS record, am.message, am.created_at
FROM search s
JOIN amendments am ON am.id = s.entity_id
JOIN records r ON r.id = am.record_id
WHERE s.kind = 'amendment' AND search MATCH 'pricing OR proposal OR launch'
ORDER BY rank;`,
  },
];

/**
 * History over the activity feed: one record's, one person's, per week, the records changed most.
 * Named parameters (:record, :user, :from, :to) a caller binds; each is answered through an index
 * of migration 017 or 012 (a test holds that none scans the activity versions), ≤ 100 ms on the
 * `large` seed (the bench times them beside the five above).
 */
export const HISTORY_QUERIES: ReportingQuery[] = [
  {
    title: "One record's history",
    sql: `SELECT a.created_at, a.action,
       COALESCE(u.first_name || ' ' || u.last_name, a.user_id, '(system)') AS who,
       c.name AS "column", a."before", a."after"
FROM activity a
LEFT JOIN members u ON u.workspace_id = a.workspace_id AND u.user_id = a.user_id
LEFT JOIN columns c ON c.id = a.column_id
WHERE a.record_id = :record
ORDER BY a.created_at, a.id;`,
  },
  {
    title: 'What one person did in a day',
    sql: `SELECT a.created_at, a.action, m.name AS module, a.target_name
FROM activity a
LEFT JOIN modules m ON m.id = a.module_id
WHERE a.user_id = :user AND a.created_at >= :from AND a.created_at < :to
ORDER BY a.created_at;`,
  },
  {
    title: "One person's changes per week",
    sql: `SELECT strftime('%Y-%W', a.created_at) AS week, a.action, COUNT(*) AS changes
FROM activity a
WHERE a.user_id = :user
GROUP BY 1, 2
ORDER BY 1, 3 DESC;`,
  },
  {
    title: 'Changes per week, per person',
    sql: `SELECT d.week, COALESCE(u.first_name || ' ' || u.last_name, d.user_id, '(system)') AS who, SUM(d.n) AS changes
FROM (SELECT strftime('%Y-%W', created_at) AS week, workspace_id, user_id, COUNT(*) AS n
      FROM activity GROUP BY 1, 2, 3) d
LEFT JOIN members u ON u.workspace_id = d.workspace_id AND u.user_id = d.user_id
GROUP BY 1, 2
ORDER BY 1, 3 DESC;`,
  },
  {
    title: 'The records changed most, with their history',
    sql: `WITH top AS (
  SELECT record_id, COUNT(*) AS changes FROM activity
  WHERE record_id IS NOT NULL
  GROUP BY record_id ORDER BY changes DESC, record_id LIMIT 10)
SELECT r.name AS record, t.changes, a.created_at, a.action,
       COALESCE(u.first_name || ' ' || u.last_name, a.user_id, '(system)') AS who
FROM top t
JOIN activity a ON a.record_id = t.record_id
LEFT JOIN records r ON r.id = t.record_id
LEFT JOIN members u ON u.workspace_id = a.workspace_id AND u.user_id = a.user_id
ORDER BY t.changes DESC, t.record_id, a.created_at;`,
  },
];
