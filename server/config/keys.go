package config

import (
	"math"
	"os"
	"slices"
	"strings"
	"time"
)

// key describes one configuration key. Adding a key to SVC is one entry in
// keys plus its field in Config: Default, Load, Keys, the environment
// variable name, suggestions, error messages, svc-serve --help and the
// configuration reference (docs/configuration.md, see Reference) all
// derive from the entry.
type key struct {
	name string // PostgREST's name, used in the file, as flag, and for SVC_* (see envName)
	doc  string // one line, for docs and --help
	def  string // default, written as it would be in the file; parsed by set like any value
	set  setter // parses and validates a value and stores it in Config
	// svc marks a key of SVC's own, which PostgREST does not have.
	svc bool
	// atStart marks a key svc-serve reads once, when it starts: the pool,
	// the listening sockets, the LISTEN session and the logger are built
	// once, so 'reload config' leaves such a key as it was.
	atStart bool
	// notInDB marks a key in-database configuration cannot set: how to
	// reach the database and listen, and what to serve from, are needed
	// before the database can be asked; the pool is sized and the logger
	// built before it is; compat-names names the settings read from it.
	notInDB bool
}

// keys is the table of implemented keys, in the order errors are reported.
var keys = []key{
	{name: "db-uri", def: "postgresql://", atStart: true, notInDB: true,
		doc: "PostgreSQL connection URI or key=value string (libpq syntax); @<file> reads it from that file",
		set: textOrFile(func(c *Config) *string { return &c.DBURI })},
	{name: "db-schemas", def: "public",
		doc: "comma-separated schemas exposed by the API; the first is the default",
		set: list(true, func(c *Config) *[]string { return &c.DBSchemas })},
	{name: "db-anon-role", def: "",
		doc: "role used for requests without credentials; empty refuses them",
		set: text(func(c *Config) *string { return &c.DBAnonRole })},
	{name: "db-extra-search-path", def: "public",
		doc: "comma-separated schemas added to search_path of every request",
		set: list(false, func(c *Config) *[]string { return &c.DBExtraSearchPath })},
	{name: "db-pool", def: "10", atStart: true, notInDB: true,
		doc: "maximum number of connections in the pool",
		set: whole(1, math.MaxInt32, func(c *Config) *int { return &c.DBPool })},
	{name: "db-pool-acquisition-timeout", def: "10",
		doc: "seconds a request waits for a pool connection before failing",
		set: seconds(1, func(c *Config) *time.Duration { return &c.DBPoolAcquisitionTimeout })},
	{name: "db-pool-cancel-timeout", def: "10", svc: true,
		doc: "seconds a pool connection whose request's client left stays out of the pool while PostgreSQL stops the request's statement; past it the connection is closed and its place given back, though its backend may still run",
		set: seconds(1, func(c *Config) *time.Duration { return &c.DBPoolCancelTimeout })},
	{name: "db-pool-max-lifetime", def: "1800", atStart: true,
		doc: "seconds a pool connection lives before it is replaced, so connections spread again after a failover",
		set: seconds(1, func(c *Config) *time.Duration { return &c.DBPoolMaxLifetime })},
	{name: "db-pool-max-idletime", def: "30", atStart: true,
		doc: "seconds an idle pool connection is kept before it is closed",
		set: seconds(1, func(c *Config) *time.Duration { return &c.DBPoolMaxIdletime })},
	{name: "db-channel", def: "", atStart: true, notInDB: true,
		doc: "NOTIFY channel listened to for reloads; empty (as in PostgREST) means svc, or pgrst under compat-names = postgrest, and the other of the two is heard as well, acted on and logged with a notice naming this setting; set, only it is heard. Every role that can connect may NOTIFY any channel: a name of your own keeps roles that do not know it from asking for reloads (see docs/operations.md)",
		set: text(func(c *Config) *string { return &c.DBChannel })},
	{name: "db-channel-enabled", def: "true", atStart: true, notInDB: true,
		doc: "whether to LISTEN on db-channel; false leaves reloads to SIGUSR1 (schema) and SIGUSR2 (configuration), so that no database role can ask for one",
		set: boolean(func(c *Config) *bool { return &c.DBChannelEnabled })},
	{name: "db-max-rows", def: "0",
		doc: "maximum rows returned by a read; 0 means unlimited",
		set: whole(0, math.MaxInt, func(c *Config) *int { return &c.DBMaxRows })},
	{name: "db-aggregates-enabled", def: "false",
		doc: "whether select may use the aggregate functions avg(), count(), max(), min() and sum()",
		set: boolean(func(c *Config) *bool { return &c.DBAggregatesEnabled })},
	{name: "db-plan-enabled", def: "false",
		doc: "whether clients may ask for the execution plan (Accept: application/vnd.svc.plan)",
		set: boolean(func(c *Config) *bool { return &c.DBPlanEnabled })},
	{name: "db-tx-end", def: "commit",
		doc: "how request transactions end: commit, commit-allow-override, rollback or rollback-allow-override (Prefer: tx= overrides)",
		set: oneOf([]string{"commit", "commit-allow-override", "rollback", "rollback-allow-override"}, func(c *Config) *string { return &c.DBTxEnd })},
	{name: "db-config", def: "true", notInDB: true,
		doc: "whether to read configuration from the authenticator role's svc.* settings (pgrst.* under compat-names = postgrest) at start and on 'reload config'",
		set: boolean(func(c *Config) *bool { return &c.DBConfig })},
	{name: "db-pre-config", def: "", notInDB: true,
		doc: "function (schema.name) called before reading in-database configuration; it may set svc.* (or pgrst.*) settings",
		set: text(func(c *Config) *string { return &c.DBPreConfig })},
	{name: "db-pre-request", def: "",
		doc: "function (schema.name or name) called in every request's transaction before its statement",
		set: text(func(c *Config) *string { return &c.DBPreRequest })},
	{name: "jwt-secret", def: "",
		doc: "JWT key: a shared secret of at least 32 characters, or a JWK or JWK Set as JSON text; @<file> reads it from that file",
		set: textOrFile(func(c *Config) *string { return &c.JWTSecret })},
	{name: "jwt-secret-is-base64", def: "false",
		doc: "whether a plain jwt-secret is base64-encoded",
		set: boolean(func(c *Config) *bool { return &c.JWTSecretIsBase64 })},
	{name: "jwt-aud", def: "",
		doc: "audience a JWT's aud claim must contain when it has one; empty accepts any",
		set: text(func(c *Config) *string { return &c.JWTAud })},
	{name: "jwt-role-claim-key", def: ".role",
		doc: `JSON path of the claim naming the role, e.g. .role or .app_metadata.role`,
		set: nonEmpty("a JSON path such as .role", func(c *Config) *string { return &c.JWTRoleClaimKey })},
	{name: "jwt-jwks-url", def: "", svc: true,
		doc: "URL of a JWK Set fetched at start and refreshed, so signing keys rotate without a restart",
		set: text(func(c *Config) *string { return &c.JWTJWKSURL })},
	{name: "jwt-cache-max-entries", def: "1000",
		doc: "verified tokens remembered until they expire, so a repeated token costs no signature check; 0 disables",
		set: whole(0, math.MaxInt32, func(c *Config) *int { return &c.JWTCacheMaxEntries })},
	{name: "jwt-cache-max-bytes", def: "16777216", svc: true,
		doc: "memory, in bytes, the verified tokens remembered may hold, estimated from the lengths of each token and its claims plus 256 bytes; past it the least recently used make room, and a token estimated at more than a sixteenth of it is verified each time, not kept; 0 disables (a token is at most as long as server-max-header-bytes lets its Authorization header be)",
		set: whole(0, math.MaxInt32, func(c *Config) *int { return &c.JWTCacheMaxBytes })},
	{name: "server-shape-cache-max-entries", def: "1024", svc: true,
		doc: "request shapes (a GET with its values taken out, or an insert with its body's values taken out) whose planned statements are kept (an insert's parse, by its head, and its plan and statement, by its body's keys, each an entry), for reads, for calls and for inserts each; the least recently used makes room; 0 disables",
		set: whole(0, math.MaxInt32, func(c *Config) *int { return &c.ServerShapeCacheMaxEntries })},
	{name: "server-shape-cache-max-bytes", def: "16777216", svc: true,
		doc: "memory, in bytes, the request shapes kept may hold, for reads, for calls and for inserts each, estimated from their statements, templates and an insert's kept parse and plan; past it the least recently used makes room, and a shape estimated at more than a sixteenth of it is not kept; 0 disables",
		set: whole(0, math.MaxInt32, func(c *Config) *int { return &c.ServerShapeCacheMaxBytes })},
	{name: "server-host", def: "!4", atStart: true, notInDB: true,
		doc: `host to listen on: a name or address, or "!4", "*4", "!6", "*6", "*" for all interfaces`,
		set: text(func(c *Config) *string { return &c.ServerHost })},
	{name: "server-cors-allowed-origins", def: "",
		doc: "comma-separated origins browsers may call the API from; empty allows any origin",
		set: list(false, func(c *Config) *[]string { return &c.ServerCORSAllowedOrigins })},
	{name: "server-port", def: "3000", atStart: true, notInDB: true,
		doc: "TCP port to listen on; 0 picks a free port",
		set: whole(0, 65535, func(c *Config) *int { return &c.ServerPort })},
	{name: "server-max-body-bytes", def: "8388608", svc: true,
		doc: "largest request body read, in bytes; a larger one is answered 413 before it reaches the database (a write holds 3 to 13 times its body in memory: see docs/operations.md on sizing)",
		set: whole(1, math.MaxInt32, func(c *Config) *int { return &c.ServerMaxBodyBytes })},
	{name: "server-max-lines-body-bytes", def: "268435456", svc: true,
		doc: "largest JSON Lines body of an insert, in bytes; such a body is read a batch of about server-response-buffer-bytes at a time while its transaction runs, so this bounds the transaction's work and time, not svc-serve's memory; each line is bounded by server-max-body-bytes",
		set: whole(1, math.MaxInt, func(c *Config) *int { return &c.ServerMaxLinesBodyBytes })},
	{name: "server-response-buffer-bytes", def: "1048576", svc: true,
		doc: "largest body of rows (or root document built for its request) answered whole, with Content-Length, in bytes; a larger one leaves chunked as PostgreSQL sends its rows (as the document is built), so that memory follows the request, not the result (see docs/api.md on streamed answers)",
		set: whole(64<<10, math.MaxInt32, func(c *Config) *int { return &c.ServerResponseBufferBytes })},
	{name: "server-response-buffers-max-bytes", def: "67108864", svc: true, atStart: true,
		doc: "memory, in bytes, the bodies of rows (and root documents built for their requests) held by all requests at once may take before more are answered whole; past it a body outgrowing 64 KiB streams as if it had outgrown server-response-buffer-bytes",
		set: whole(1<<20, math.MaxInt32, func(c *Config) *int { return &c.ServerResponseBuffersMaxBytes })},
	{name: "server-max-url-bytes", def: "65536", svc: true,
		doc: "longest path and query string, in bytes; a longer one is answered 414 before it is parsed (the request line also counts toward server-max-header-bytes)",
		set: whole(1, math.MaxInt32, func(c *Config) *int { return &c.ServerMaxURLBytes })},
	{name: "request-max-filters", def: "256", svc: true,
		doc: "most filter conditions in a request (top-level, in logic trees, on embedded resources, function parameters); more are answered 400",
		set: whole(1, math.MaxInt32, func(c *Config) *int { return &c.RequestMaxFilters })},
	{name: "request-max-select-items", def: "512", svc: true,
		doc: "most select items in a request, embedded resources' included; more are answered 400",
		set: whole(1, math.MaxInt32, func(c *Config) *int { return &c.RequestMaxSelectItems })},
	{name: "request-max-embed-depth", def: "16", svc: true,
		doc: "deepest nesting of embedded resources in select; deeper is answered 400",
		set: whole(1, 64, func(c *Config) *int { return &c.RequestMaxEmbedDepth })},
	{name: "request-max-embeds", def: "32", svc: true,
		doc: "most embedded resources in a request, nested ones included; more are answered 400 (each is a subquery PostgreSQL plans before statement_timeout can stop it)",
		set: whole(1, math.MaxInt32, func(c *Config) *int { return &c.RequestMaxEmbeds })},
	{name: "request-max-json-path-depth", def: "32", svc: true,
		doc: "most arrows (-> or ->>) in one JSON path, in select, filters or order; more are answered 400",
		set: whole(1, 1000, func(c *Config) *int { return &c.RequestMaxJSONPathDepth })},
	{name: "request-max-json-path-steps", def: "256", svc: true,
		doc: "most arrows (-> or ->>) in all the JSON paths of a request together, in select, filters and order; more are answered 400 (each is an operator call per row)",
		set: whole(1, math.MaxInt32, func(c *Config) *int { return &c.RequestMaxJSONPathSteps })},
	{name: "request-max-logic-depth", def: "16", svc: true,
		doc: "deepest nesting of logic trees (or=, and= and the trees inside them); deeper is answered 400",
		set: whole(1, 1000, func(c *Config) *int { return &c.RequestMaxLogicDepth })},
	{name: "server-max-header-bytes", def: "1048576", svc: true, atStart: true, notInDB: true,
		doc: "largest request line and headers, in bytes; larger ones are answered 431; it bounds the largest JWT accepted too, which comes in the Authorization header",
		set: whole(4096, math.MaxInt32, func(c *Config) *int { return &c.ServerMaxHeaderBytes })},
	{name: "server-read-timeout", def: "60", svc: true, atStart: true, notInDB: true,
		doc: "seconds a client has to send a whole request, body included (slow clients cannot hold a connection), and that an idle connection is kept; a body still incomplete then is answered 408; 0 for none. The deadline may fall up to a sixteenth of it later, at most a second, so that a busy connection need not move it on every request",
		set: seconds(0, func(c *Config) *time.Duration { return &c.ServerReadTimeout })},
	{name: "server-write-timeout", def: "0", svc: true, atStart: true, notInDB: true,
		doc: "seconds to answer a request, from the end of its headers; 0 for none (statement_timeout bounds the database's part)",
		set: seconds(0, func(c *Config) *time.Duration { return &c.ServerWriteTimeout })},
	{name: "server-stream-send-timeout", def: "10", svc: true,
		doc: "seconds a streamed answer (one past server-response-buffer-bytes) waits for its client to take each chunk; a client that lags half a second behind PostgreSQL holds one of the sessions slow clients may hold (half of db-pool, at least one), and has its answer cut when none is free or a chunk waits the whole time, so that slow clients cannot hold the pool",
		set: seconds(1, func(c *Config) *time.Duration { return &c.ServerStreamSendTimeout })},
	{name: "server-idle-timeout", def: "120", svc: true, atStart: true, notInDB: true,
		doc: "seconds an idle keep-alive connection is kept open",
		set: seconds(1, func(c *Config) *time.Duration { return &c.ServerIdleTimeout })},
	{name: "server-unix-socket", def: "", atStart: true, notInDB: true,
		doc: "path of a Unix socket to listen on instead of TCP",
		set: text(func(c *Config) *string { return &c.ServerUnixSocket })},
	{name: "server-unix-socket-mode", def: "660", atStart: true, notInDB: true,
		doc: "octal permissions of server-unix-socket",
		set: fileMode(func(c *Config) *os.FileMode { return &c.ServerUnixSocketMode })},
	{name: "server-reuseport", def: "false", svc: true, atStart: true, notInDB: true,
		doc: "listen with SO_REUSEPORT, so a new process can bind the port while the old one drains",
		set: boolean(func(c *Config) *bool { return &c.ServerReuseport })},
	{name: "server-gc-headroom", def: "16777216", svc: true, atStart: true, notInDB: true,
		doc: "bytes of garbage the heap may gather past what is live before Go collects, where Go's default waits for the heap to double: fewer collections for at most this much more memory; Go's default applies once the live heap exceeds it, 0 leaves collection to Go, and a GOGC environment variable turns this off",
		set: whole(0, math.MaxInt32, func(c *Config) *int { return &c.ServerGCHeadroom })},
	{name: "db-channel-uri", def: "", svc: true, atStart: true, notInDB: true,
		doc: "direct connection for LISTEN, introspection and in-database configuration when db-uri goes through a transaction pooler; empty uses db-uri",
		set: text(func(c *Config) *string { return &c.DBChannelURI })},
	{name: "db-prepared-statements", def: "true",
		doc: "whether request statements are prepared once per connection; turn off behind a transaction pooler that cannot keep them",
		set: boolean(func(c *Config) *bool { return &c.DBPreparedStatements })},
	{name: "db-prepared-statements-max-bytes", def: "33554432", svc: true, atStart: true, notInDB: true,
		doc: "PostgreSQL memory, in bytes, the statements prepared on one pool session may hold, estimated from their length; past it the least recently used are deallocated, and a statement estimated at more than a sixteenth of it is parsed each time instead of prepared (see docs/operations.md); 0 prepares nothing",
		set: whole(0, math.MaxInt32, func(c *Config) *int { return &c.DBStatementsMaxBytes })},
	{name: "db-session-row-types-max-bytes", def: "16777216", svc: true, atStart: true, notInDB: true,
		doc: "PostgreSQL memory, in bytes, the row types registered by the statements one pool session has run may hold, estimated from their columns; PostgreSQL keeps each new list of output names and types until the session ends, so a session past it is closed after its request and the pool opens another (see docs/operations.md)",
		set: whole(1<<20, math.MaxInt32, func(c *Config) *int { return &c.DBRowTypesMaxBytes })},
	{name: "db-replica-uris", def: "", svc: true, atStart: true, notInDB: true,
		doc: "streaming standbys of db-uri's database that may serve reads (GET, HEAD, and calls of stable or immutable functions): postgresql:// URIs separated by commas; @<file> reads them from that file, one a line; empty serves everything from db-uri",
		set: uriList(func(c *Config) *[]string { return &c.DBReplicaURIs })},
	{name: "db-replica-pool", def: "10", svc: true, atStart: true, notInDB: true,
		doc: "maximum number of connections in each replica's pool",
		set: whole(1, math.MaxInt32, func(c *Config) *int { return &c.DBReplicaPool })},
	{name: "db-replica-max-lag", def: "5", svc: true, atStart: true,
		doc: "seconds a replica may lag behind the primary and still serve reads; a new snapshot waits up to this long for the replicas to replay it",
		set: seconds(1, func(c *Config) *time.Duration { return &c.DBReplicaMaxLag })},
	{name: "log-level", def: "error", atStart: true, notInDB: true,
		doc: "least severe level logged: crit, error, warn, info or debug; what svc-serve starts, connects to, loads and listens on is logged at every level",
		set: oneOf([]string{"crit", "error", "warn", "info", "debug"}, func(c *Config) *string { return &c.LogLevel })},
	{name: "log-format", def: "text", svc: true, atStart: true, notInDB: true,
		doc: "log line format: text (key=value) or json (one object per line)",
		set: oneOf([]string{"text", "json"}, func(c *Config) *string { return &c.LogFormat })},
	{name: "log-query", def: "disabled",
		doc: "main-query logs each request's main SQL statement beside its access log line; disabled does not (PostgREST 14's true and false mean the same)",
		set: logQuery},
	{name: "client-error-verbosity", def: ClientErrorsVerbose,
		doc: "what an error's body tells a client: verbose (code, message, details and hint) or minimal (code and message; the log keeps the rest)",
		set: oneOf([]string{ClientErrorsVerbose, ClientErrorsMinimal}, func(c *Config) *string { return &c.ClientErrorVerbosity })},
	{name: "server-timing-enabled", def: "false",
		doc: "whether responses carry a Server-Timing header: jwt, parse and plan (before the database), transaction and response",
		set: boolean(func(c *Config) *bool { return &c.ServerTimingEnabled })},
	{name: "server-trace-header", def: "",
		doc: "request header (e.g. X-Request-Id) echoed in the response and the access log; empty for none",
		set: text(func(c *Config) *string { return &c.ServerTraceHeader })},
	{name: "admin-server-port", def: "", atStart: true,
		doc: "TCP port of the admin server (/live, /ready, /metrics, /snapshot); empty runs none, 0 picks a free port",
		set: optionalPort(func(c *Config) *int { return &c.AdminServerPort })},
	{name: "admin-server-host", def: "", atStart: true,
		doc: "host the admin server listens on, in server-host's syntax; empty uses server-host",
		set: text(func(c *Config) *string { return &c.AdminServerHost })},
	{name: "openapi-mode", def: "follow-privileges",
		doc: "root endpoint description: follow-privileges (what the requesting role may use), ignore-privileges (everything exposed) or disabled (404)",
		set: oneOf([]string{OpenAPIFollowPrivileges, OpenAPIIgnorePrivileges, OpenAPIDisabled}, func(c *Config) *string { return &c.OpenAPIMode })},
	{name: "openapi-security-active", def: "false",
		doc: "whether the OpenAPI document declares JWT (Authorization header) security",
		set: boolean(func(c *Config) *bool { return &c.OpenAPISecurityActive })},
	{name: "openapi-server-proxy-uri", def: "",
		doc: "public URI of the API (scheme, host, port, base path) the OpenAPI document announces; empty uses server-host and server-port",
		set: proxyURI(func(c *Config) *string { return &c.OpenAPIServerProxyURI })},
	{name: "openapi-cache-max-bytes", def: "33554432", svc: true,
		doc: "bytes of built root documents kept, one per exposed schema and set of privileges a requesting role holds, until the next snapshot; the least recently served makes room; a document larger than this is kept gzip-compressed when that fits, and decompressed as it is sent; one too large even so (every one, with 0) is built for each request as it is sent, chunked past server-response-buffer-bytes. svc-serve holds at most this, plus, for each build under way (one per core at most for the cache, and as many for clients), up to this again and 1 MiB, or a streamed answer's buffer (see docs/operations.md on the root document)",
		set: whole(0, math.MaxInt32, func(c *Config) *int { return &c.OpenAPICacheMaxBytes })},
	{name: "openapi-version", def: "2.0", svc: true,
		doc: "version of the root description when the Accept header names none: 2.0 (Swagger, as PostgREST) or 3.1 (OpenAPI 3.1); Accept: application/openapi+json;version=3.1 or ;version=2.0 picks one per request",
		set: oneOf(OpenAPIVersions, func(c *Config) *string { return &c.OpenAPIVersion })},
	{name: "openapi-ui-path", def: "", svc: true,
		doc: "path (such as /docs) at which svc-serve serves an API reference page (Swagger UI, embedded) for the OpenAPI 3.1 description; empty serves none; it hides a relation of the same name",
		set: uiPath(func(c *Config) *string { return &c.OpenAPIUIPath })},
	{name: "db-root-spec", def: "",
		doc: "function called (as GET /rpc/<name> would be) to answer GET / instead of the built-in OpenAPI document; its answer is labelled application/openapi+json, or application/json when Accept asks for that",
		set: text(func(c *Config) *string { return &c.DBRootSpec })},
	{name: "url-use-legacy-target-names", def: "true", svc: true,
		doc: "whether parameters addressed to an aliased embed may name it by its relation (books.limit for b:books(...)), answered with a deprecation Warning header; false refuses them (400)",
		set: boolean(func(c *Config) *bool { return &c.URLUseLegacyTargetNames })},
	{name: "snapshot", def: "", svc: true, notInDB: true,
		doc: `schema snapshot file written by svc-introspect (dump writes it when not given -o), or "db" ("db:<schema>") for the one svc-introspect publish made active; empty introspects the live database at start`,
		set: text(func(c *Config) *string { return &c.Snapshot })},
	{name: "compat-names", def: "svc", svc: true, atStart: true, notInDB: true,
		doc: "names clients and the database see: svc (SVC's own) or postgrest (PGRST codes, vnd.pgrst media types, channel pgrst, pgrst.* settings, PGRST_* variables); unset, it is postgrest when PGRST_* variables set keys (a warning names them), and svc set while they do stops svc-serve, naming them",
		set: oneOf(NamingModes, func(c *Config) *string { return &c.CompatNames })},
}

// appSettingsPrefix opens the free-form keys PostgREST hands to SQL as
// current_setting('app.settings.<name>'); any name is accepted.
const appSettingsPrefix = "app.settings."

// envNotConfig lists SVC_* variables read by tooling (tests, PostgreSQL
// discovery) rather than by Load; warning about them would be noise.
var envNotConfig = []string{"SVC_PG_BIN", "SVC_TEST_DB_URI"}

// envPrefix starts every configuration environment variable;
// compat-names = postgrest adds pgrstEnvPrefix (postgrest.go).
const envPrefix = "SVC_"

// envName is the environment variable for a key: SVC_ + envSuffix.
func envName(name string) string { return envPrefix + envSuffix(name) }

// envSuffix is a key's environment variable without its prefix: the name
// upper-cased with "-" and "." as "_", as PostgREST does with PGRST_.
func envSuffix(name string) string {
	return strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(name))
}

// Lookup tables derived from keys, unimplementedKeys and aliases; the
// *ByEnv ones are keyed by envSuffix, so they serve every prefix.
var (
	keyByName        = map[string]*key{}
	keyByEnv         = map[string]*key{}
	unsupportedByEnv = map[string]string{}
	aliasByEnv       = map[string]string{}
	sortedKeyNames   []string
)

func init() {
	for i := range keys {
		k := &keys[i]
		keyByName[k.name] = k
		keyByEnv[envSuffix(k.name)] = k
		sortedKeyNames = append(sortedKeyNames, k.name)
	}
	slices.Sort(sortedKeyNames)
	for _, u := range unimplementedKeys {
		unsupportedByEnv[envSuffix(u.name)] = u.name
	}
	for alias := range aliases {
		aliasByEnv[envSuffix(alias)] = alias
	}
}

// Keys returns the names of the implemented configuration keys, sorted.
// Keys starting with "app.settings." are accepted too but not listed.
func Keys() []string {
	return slices.Clone(sortedKeyNames)
}

// Describe returns the one-line meaning and the default (in file syntax) of
// an implemented key, and false for any other name.
func Describe(name string) (doc, def string, ok bool) {
	k, ok := keyByName[name]
	if !ok {
		return "", "", false
	}
	return k.doc, k.def, true
}
