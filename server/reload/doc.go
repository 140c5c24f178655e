// Package reload keeps what a server serves current: the schema snapshot
// (Snapshots, loaded from a file, the database or live introspection, and
// swapped whole on NOTIFY), the configuration (ResolveConfig, with the
// in-database settings, and the Runtime that swaps a new Handler in on
// 'reload config'), and the LISTEN session that hears both. A reload is
// built completely beside what is in force and swapped atomically; one
// that fails keeps the old and says why.
package reload
