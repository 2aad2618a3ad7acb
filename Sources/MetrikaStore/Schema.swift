/// One numbered step of the history schema. Applied once, in order, inside a transaction, and recorded
/// in `metrika_migrations`. Never edit a released migration: add the next one.
struct Migration: Sendable {
    let version: Int
    let name: String
    let sql: String
}

/// The history schema as a list of migrations.
enum Schema {
    /// The table that records applied migrations; its presence marks a database as metrika's.
    static let migrationsTable = "metrika_migrations"

    static let createMigrationsTable = """
        CREATE TABLE IF NOT EXISTS metrika_migrations (
            version INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            applied_at REAL NOT NULL
        )
        """

    static let migrations: [Migration] = [
        Migration(
            version: 1, name: "history",
            sql: """
                CREATE TABLE counters (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    site TEXT NOT NULL,
                    status TEXT NOT NULL,
                    permission TEXT NOT NULL,
                    owner_login TEXT NOT NULL,
                    time_zone_name TEXT NOT NULL,
                    time_zone_offset_minutes INTEGER NOT NULL,
                    create_time TEXT,
                    is_favorite INTEGER NOT NULL CHECK (is_favorite IN (0, 1)),
                    updated_at REAL NOT NULL
                );
                CREATE TABLE fetch_log (
                    id INTEGER PRIMARY KEY,
                    counter_id INTEGER NOT NULL REFERENCES counters(id) ON DELETE CASCADE,
                    range_from TEXT NOT NULL,
                    range_to TEXT NOT NULL,
                    metrics TEXT NOT NULL,
                    fetched_at REAL NOT NULL,
                    settled_before TEXT NOT NULL,
                    sampled INTEGER NOT NULL CHECK (sampled IN (0, 1)),
                    data_lag REAL,
                    CHECK (range_from <= range_to)
                );
                CREATE INDEX fetch_log_by_counter ON fetch_log(counter_id, fetched_at);
                CREATE TABLE daily_values (
                    counter_id INTEGER NOT NULL REFERENCES counters(id) ON DELETE CASCADE,
                    metric TEXT NOT NULL,
                    day TEXT NOT NULL CHECK (day GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
                    unit TEXT NOT NULL,
                    value REAL,
                    settled INTEGER NOT NULL CHECK (settled IN (0, 1)),
                    fetch_id INTEGER NOT NULL REFERENCES fetch_log(id),
                    PRIMARY KEY (counter_id, metric, day)
                ) WITHOUT ROWID;
                CREATE INDEX daily_values_by_fetch ON daily_values(fetch_id);
                CREATE INDEX daily_values_by_day ON daily_values(counter_id, day);
                CREATE TABLE period_totals (
                    counter_id INTEGER NOT NULL REFERENCES counters(id) ON DELETE CASCADE,
                    metric TEXT NOT NULL,
                    period_from TEXT NOT NULL,
                    period_to TEXT NOT NULL,
                    unit TEXT NOT NULL,
                    value REAL,
                    settled INTEGER NOT NULL CHECK (settled IN (0, 1)),
                    fetched_at REAL NOT NULL,
                    PRIMARY KEY (counter_id, metric, period_from, period_to),
                    CHECK (period_from <= period_to)
                ) WITHOUT ROWID;
                """),
        // `metrika logs`: prepared log requests a run ordered and the parts it loaded, so an
        // interrupted run resumes instead of ordering (and paying quota for) the log again.
        Migration(
            version: 2, name: "log_jobs",
            sql: """
                CREATE TABLE log_jobs (
                    request_id INTEGER PRIMARY KEY,
                    counter_id INTEGER NOT NULL,
                    source TEXT NOT NULL CHECK (source IN ('visits', 'hits')),
                    date_from TEXT NOT NULL,
                    date_to TEXT NOT NULL,
                    fields TEXT NOT NULL,
                    destination TEXT NOT NULL,
                    created_at REAL NOT NULL,
                    CHECK (date_from <= date_to)
                );
                CREATE INDEX log_jobs_by_arguments ON log_jobs(counter_id, source, date_from, date_to);
                CREATE TABLE log_job_parts (
                    request_id INTEGER NOT NULL REFERENCES log_jobs(request_id) ON DELETE CASCADE,
                    part INTEGER NOT NULL,
                    loaded_at REAL NOT NULL,
                    PRIMARY KEY (request_id, part)
                ) WITHOUT ROWID;
                """),
        // `metrika alert`: the anomalies it has announced and not yet seen end (one open episode per
        // counter and metric, so a later run that sees the same one stays silent), and each counter's
        // goals as last read (the goals list is asked for at most once a day, not on every hourly run).
        Migration(
            version: 3, name: "alerts",
            sql: """
                CREATE TABLE alert_episodes (
                    counter_id INTEGER NOT NULL,
                    metric TEXT NOT NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('drop', 'rise', 'stopped')),
                    since TEXT NOT NULL,
                    last_day TEXT NOT NULL,
                    value REAL NOT NULL,
                    expected REAL NOT NULL,
                    notified_at REAL NOT NULL,
                    PRIMARY KEY (counter_id, metric),
                    CHECK (since <= last_day)
                ) WITHOUT ROWID;
                CREATE TABLE counter_goals (
                    counter_id INTEGER NOT NULL,
                    position INTEGER NOT NULL,
                    goal_id INTEGER NOT NULL,
                    name TEXT NOT NULL,
                    type TEXT NOT NULL,
                    fetched_at REAL NOT NULL,
                    PRIMARY KEY (counter_id, position)
                ) WITHOUT ROWID;
                CREATE TABLE counter_goals_read (
                    counter_id INTEGER PRIMARY KEY,
                    fetched_at REAL NOT NULL
                );
                """),
        // Money: the currency a counter keeps its revenue in (the Reporting API's answer says it),
        // so that an offline report without --currency reads the series of that currency. Money
        // values themselves are stored under their API name, which holds the currency
        // (`ym:s:ecommerceRUBConvertedRevenue`), with the unit `money:RUB`: another currency is
        // another series, never mixed with this one.
        Migration(
            version: 4, name: "counter_currency",
            sql: """
                CREATE TABLE counter_currency (
                    counter_id INTEGER PRIMARY KEY REFERENCES counters(id) ON DELETE CASCADE,
                    currency TEXT NOT NULL CHECK (length(currency) = 3),
                    seen_at REAL NOT NULL
                );
                """),
        // `metrika logs` without --from/--to continues from the days an earlier run loaded into the
        // same table: the first and last day loaded, per counter, source and destination.
        Migration(
            version: 5, name: "log_loads",
            sql: """
                CREATE TABLE log_loads (
                    counter_id INTEGER NOT NULL,
                    source TEXT NOT NULL CHECK (source IN ('visits', 'hits')),
                    destination TEXT NOT NULL,
                    first_day TEXT NOT NULL CHECK (first_day GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
                    last_day TEXT NOT NULL CHECK (last_day GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
                    loaded_at REAL NOT NULL,
                    PRIMARY KEY (counter_id, source, destination),
                    CHECK (first_day <= last_day)
                ) WITHOUT ROWID;
                """),
        // `metrika sync --clickhouse`: the values last sent to each ClickHouse table, so that a sync
        // sends only what changed since.
        Migration(
            version: 6, name: "daily_mirror",
            sql: """
                CREATE TABLE daily_mirror (
                    destination TEXT NOT NULL,
                    counter_id INTEGER NOT NULL,
                    day TEXT NOT NULL CHECK (day GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
                    metric TEXT NOT NULL,
                    value REAL NOT NULL,
                    PRIMARY KEY (destination, counter_id, day, metric)
                ) WITHOUT ROWID;
                """),
        // `metrika alert --status` / `--forget ID`: each open episode gets a short id that is never
        // reused (AUTOINCREMENT), and the value and expected value the last run measured while it lasts.
        Migration(
            version: 7, name: "alert_episode_ids",
            sql: """
                CREATE TABLE alert_episodes_7 (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    counter_id INTEGER NOT NULL,
                    metric TEXT NOT NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('drop', 'rise', 'stopped')),
                    since TEXT NOT NULL,
                    last_day TEXT NOT NULL,
                    value REAL NOT NULL,
                    expected REAL NOT NULL,
                    notified_at REAL NOT NULL,
                    last_value REAL,
                    last_expected REAL,
                    UNIQUE (counter_id, metric),
                    CHECK (since <= last_day)
                );
                INSERT INTO alert_episodes_7 (counter_id, metric, kind, since, last_day, value, expected, notified_at)
                    SELECT counter_id, metric, kind, since, last_day, value, expected, notified_at FROM alert_episodes
                    ORDER BY notified_at, counter_id, metric;
                DROP TABLE alert_episodes;
                ALTER TABLE alert_episodes_7 RENAME TO alert_episodes;
                """),
        // `metrika logs`: every day loaded into each table, with its rows (NULL: not counted), so
        // that `--list` names the gaps between loads and a run without dates fills them. The days
        // of earlier loads are known only as first…last: they are taken as loaded.
        Migration(
            version: 8, name: "log_loaded_days",
            sql: """
                CREATE TABLE log_loaded_days (
                    counter_id INTEGER NOT NULL,
                    source TEXT NOT NULL CHECK (source IN ('visits', 'hits')),
                    destination TEXT NOT NULL,
                    day TEXT NOT NULL CHECK (day GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
                    rows INTEGER CHECK (rows IS NULL OR rows >= 0),
                    loaded_at REAL NOT NULL,
                    PRIMARY KEY (counter_id, source, destination, day)
                ) WITHOUT ROWID;
                INSERT INTO log_loaded_days (counter_id, source, destination, day, rows, loaded_at)
                WITH RECURSIVE days (counter_id, source, destination, day, last_day, loaded_at) AS (
                    SELECT counter_id, source, destination, first_day, last_day, loaded_at FROM log_loads
                    UNION ALL
                    SELECT counter_id, source, destination, date(day, '+1 day'), last_day, loaded_at FROM days WHERE day < last_day
                )
                SELECT counter_id, source, destination, day, NULL, loaded_at FROM days;
                """),
        // `metrika alert --today` (and `metrika live`): values by local hour (00–23 of the counter's
        // time zone). A day's hours are stored together, all 24 once the day is over (an hour
        // without visits is 0, not absent); an hour is settled once its day is, like days. And the
        // hourly check's open anomalies (told once, as `alert_episodes` are for days, apart from
        // them: a daily run never closes an hourly episode).
        Migration(
            version: 9, name: "hourly_values",
            sql: """
                CREATE TABLE hourly_values (
                    counter_id INTEGER NOT NULL REFERENCES counters(id) ON DELETE CASCADE,
                    metric TEXT NOT NULL,
                    day TEXT NOT NULL CHECK (day GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
                    hour INTEGER NOT NULL CHECK (hour BETWEEN 0 AND 23),
                    unit TEXT NOT NULL,
                    value REAL,
                    settled INTEGER NOT NULL CHECK (settled IN (0, 1)),
                    fetched_at REAL NOT NULL,
                    PRIMARY KEY (counter_id, metric, day, hour)
                ) WITHOUT ROWID;
                CREATE TABLE hourly_episodes (
                    counter_id INTEGER NOT NULL,
                    metric TEXT NOT NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('drop', 'rise', 'stopped')),
                    day TEXT NOT NULL CHECK (day GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
                    since_hour INTEGER NOT NULL CHECK (since_hour BETWEEN 0 AND 23),
                    last_day TEXT NOT NULL,
                    last_hour INTEGER NOT NULL CHECK (last_hour BETWEEN 0 AND 23),
                    value REAL NOT NULL,
                    expected REAL NOT NULL,
                    notified_at REAL NOT NULL,
                    PRIMARY KEY (counter_id, metric)
                ) WITHOUT ROWID;
                """),
        // `metrika bot`: per bot (its numeric id, never the token) the offset of the next update to
        // read, kept before a message is answered, so that a restart never answers a message twice.
        Migration(
            version: 10, name: "bot_offsets",
            sql: """
                CREATE TABLE bot_offsets (
                    bot_id INTEGER PRIMARY KEY,
                    next_offset INTEGER NOT NULL,
                    updated_at REAL NOT NULL
                );
                """),
        // `metrika explain` and the alerts' drivers: a settled day's values by segment of one
        // dimension, per metric, so a repeated explanation asks nothing. `segment_days` says a day
        // was stored whole (every segment the API had, none cut off or sampled; a day without
        // visits has no segment); `segment_values` holds its segments.
        Migration(
            version: 11, name: "segment_values",
            sql: """
                CREATE TABLE segment_days (
                    counter_id INTEGER NOT NULL,
                    metric TEXT NOT NULL,
                    dimension TEXT NOT NULL,
                    day TEXT NOT NULL CHECK (day GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
                    fetched_at REAL NOT NULL,
                    PRIMARY KEY (counter_id, metric, dimension, day)
                ) WITHOUT ROWID;
                CREATE TABLE segment_values (
                    counter_id INTEGER NOT NULL,
                    metric TEXT NOT NULL,
                    dimension TEXT NOT NULL,
                    day TEXT NOT NULL,
                    segment TEXT NOT NULL,
                    value REAL,
                    PRIMARY KEY (counter_id, metric, dimension, day, segment),
                    FOREIGN KEY (counter_id, metric, dimension, day)
                        REFERENCES segment_days (counter_id, metric, dimension, day) ON DELETE CASCADE
                ) WITHOUT ROWID;
                """),
        // One alert family over two grains: the daily check's episodes (`alert_episodes`) and the
        // hourly check's (`hourly_episodes`) in one table, told, claimed and recorded the same way.
        // An episode is one per counter, metric and grain (a daily run never closes an hourly one);
        // a day's has no hours, an hour's has both. The daily ids are kept and never reused (the
        // sequence goes on from the old table's), the hourly episodes get the next ones.
        Migration(
            version: 12, name: "alert_family",
            sql: """
                CREATE TABLE alert_episodes_12 (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    counter_id INTEGER NOT NULL,
                    metric TEXT NOT NULL,
                    grain TEXT NOT NULL CHECK (grain IN ('day', 'hour')),
                    kind TEXT NOT NULL CHECK (kind IN ('drop', 'rise', 'stopped')),
                    since TEXT NOT NULL CHECK (since GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
                    since_hour INTEGER CHECK (since_hour BETWEEN 0 AND 23),
                    last_day TEXT NOT NULL CHECK (last_day GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
                    last_hour INTEGER CHECK (last_hour BETWEEN 0 AND 23),
                    value REAL NOT NULL,
                    expected REAL NOT NULL,
                    notified_at REAL NOT NULL,
                    last_value REAL,
                    last_expected REAL,
                    UNIQUE (counter_id, metric, grain),
                    CHECK ((grain = 'day') = (since_hour IS NULL AND last_hour IS NULL)),
                    CHECK (since <= last_day)
                );
                INSERT INTO alert_episodes_12
                    (id, counter_id, metric, grain, kind, since, since_hour, last_day, last_hour, value, expected, notified_at, last_value, last_expected)
                    SELECT id, counter_id, metric, 'day', kind, since, NULL, last_day, NULL, value, expected, notified_at, last_value, last_expected
                    FROM alert_episodes ORDER BY id;
                DELETE FROM sqlite_sequence WHERE name = 'alert_episodes_12';
                INSERT INTO sqlite_sequence (name, seq) SELECT 'alert_episodes_12', max(
                    coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'alert_episodes'), 0),
                    coalesce((SELECT max(id) FROM alert_episodes_12), 0));
                INSERT INTO alert_episodes_12 (counter_id, metric, grain, kind, since, since_hour, last_day, last_hour, value, expected, notified_at)
                    SELECT counter_id, metric, 'hour', kind, day, since_hour, last_day, last_hour, value, expected, notified_at
                    FROM hourly_episodes ORDER BY notified_at, counter_id, metric;
                DROP TABLE alert_episodes;
                DROP TABLE hourly_episodes;
                ALTER TABLE alert_episodes_12 RENAME TO alert_episodes;
                """),
        // The outbox: every message to every channel and recipient, written before it is sent and
        // marked delivered only once the channel accepted it (at least once). `body` is base64 (a
        // photo's PNG, a mail's bytes); `route` names the way there without a secret (today one per
        // channel: whichever bot, webhook or sendmail the run has); a lease (`lease_pid`, `lease_until`) keeps
        // two runs from sending the same message at once, and dies with its process.
        Migration(
            version: 13, name: "outbox",
            sql: """
                CREATE TABLE outbox (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    batch TEXT NOT NULL,
                    channel TEXT NOT NULL,
                    route TEXT NOT NULL,
                    recipient TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    body TEXT NOT NULL,
                    file_name TEXT,
                    caption TEXT,
                    episodes TEXT NOT NULL DEFAULT '',
                    created_at REAL NOT NULL,
                    state TEXT NOT NULL DEFAULT 'pending'
                        CHECK (state IN ('pending', 'delivered', 'refused', 'expired')),
                    attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at REAL NOT NULL,
                    last_error TEXT,
                    delivered_at REAL,
                    lease_pid INTEGER,
                    lease_until REAL
                );
                CREATE INDEX outbox_pending ON outbox (state, channel, route, recipient, id);
                CREATE INDEX outbox_batch ON outbox (batch);
                """),
        // Unattended runs: `metrika bot` holds one lease per bot (one running bot per token; a
        // holder is a run: its random id, pid and host, renewed while it serves) and claims each
        // update before answering it (`answered_at` set after the answer; the offset moves past
        // answered updates only). And the failures of scheduled runs (`run_jobs`: when a job last
        // ran; `run_failures`: per job and what failed, how many runs in a row, when it was
        // said), so that cron hears each failure once.
        Migration(
            version: 14, name: "unattended_runs",
            sql: """
                CREATE TABLE bot_leases (
                    bot_id INTEGER PRIMARY KEY,
                    holder TEXT NOT NULL,
                    pid INTEGER NOT NULL,
                    host TEXT NOT NULL,
                    serving INTEGER NOT NULL CHECK (serving IN (0, 1)),
                    since REAL NOT NULL,
                    expires_at REAL NOT NULL
                );
                CREATE TABLE bot_updates (
                    bot_id INTEGER NOT NULL,
                    update_id INTEGER NOT NULL,
                    holder TEXT NOT NULL,
                    claimed_at REAL NOT NULL,
                    attempts INTEGER NOT NULL CHECK (attempts >= 1),
                    answered_at REAL,
                    PRIMARY KEY (bot_id, update_id)
                ) WITHOUT ROWID;
                CREATE TABLE run_jobs (
                    job TEXT PRIMARY KEY,
                    last_run_at REAL NOT NULL
                );
                CREATE TABLE run_failures (
                    job TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    message TEXT NOT NULL,
                    exit_code INTEGER NOT NULL,
                    first_at REAL NOT NULL,
                    last_at REAL NOT NULL,
                    runs INTEGER NOT NULL CHECK (runs >= 1),
                    said_at REAL,
                    PRIMARY KEY (job, subject)
                ) WITHOUT ROWID;
                """),
        // The quota ledger (issue 47): every request to the API, per Yandex login that sends it, so
        // that every process on the machine keeps within the login's quotas. `at` is the run's clock
        // (days and 5-minute windows), `sent` the machine's (the per-second limit, stale in-flight rows).
        Migration(
            version: 16, name: "quota_ledger",
            sql: """
                CREATE TABLE quota_requests (
                    login TEXT NOT NULL,
                    at REAL NOT NULL,
                    sent REAL NOT NULL,
                    reporting INTEGER NOT NULL CHECK (reporting IN (0, 1))
                );
                CREATE INDEX quota_requests_by_login ON quota_requests(login, at);
                CREATE INDEX quota_requests_by_sent ON quota_requests(sent);
                CREATE TABLE quota_in_flight (
                    id INTEGER PRIMARY KEY,
                    login TEXT NOT NULL,
                    pid INTEGER NOT NULL,
                    started REAL NOT NULL
                );
                CREATE INDEX quota_in_flight_by_login ON quota_in_flight(login);
                """),
        // A counter's chart annotations (issue 48), as last read: the set in the API's order
        // (`counter_annotations`) and when it was read whole (`counter_annotations_read`), so a
        // read within the hour is reused and an offline run shows what was kept. A read replaces the
        // counter's set in one transaction; one `metrika annotate` wrote is added at once (without a
        // read time: it says nothing of the rest of the set).
        Migration(
            version: 17, name: "chart_annotations",
            sql: """
                CREATE TABLE counter_annotations (
                    counter_id INTEGER NOT NULL,
                    position INTEGER NOT NULL,
                    annotation_id INTEGER NOT NULL,
                    day TEXT NOT NULL CHECK (day GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
                    time TEXT,
                    title TEXT NOT NULL,
                    message TEXT NOT NULL,
                    annotation_group TEXT NOT NULL,
                    PRIMARY KEY (counter_id, position)
                ) WITHOUT ROWID;
                CREATE TABLE counter_annotations_read (
                    counter_id INTEGER PRIMARY KEY,
                    read_at REAL NOT NULL
                );
                """),
        // One outage, one story across the grains (issue 45 target 7): the day an open hourly alert's
        // story was last continued by the daily check (`continued_on`, once a day at most), and the
        // hourly alerts that closed (kept two weeks), so the daily check never tells their days again;
        // and an undelivered message's first error beside its last (`alert --status --json`).
        Migration(
            version: 19, name: "hourly_stories",
            sql: """
                ALTER TABLE alert_episodes ADD COLUMN continued_on TEXT;
                ALTER TABLE outbox ADD COLUMN first_error TEXT;
                CREATE TABLE closed_hourly_alerts (
                    counter_id INTEGER NOT NULL,
                    metric TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    since TEXT NOT NULL,
                    since_hour INTEGER NOT NULL,
                    last_day TEXT NOT NULL,
                    last_hour INTEGER NOT NULL,
                    PRIMARY KEY (counter_id, metric, since, since_hour)
                ) WITHOUT ROWID;
                """)
    ]

    /// The schema version this build creates and understands.
    static var latestVersion: Int { migrations.last?.version ?? 0 }
}
