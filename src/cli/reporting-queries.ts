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
