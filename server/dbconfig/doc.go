// Package dbconfig reads in-database configuration: the svc.* (or pgrst.*)
// settings the authenticator role carries, and what db-pre-config sets,
// and folds them into a configuration (Resolve). svc-serve resolves its
// configuration so at start and on 'reload config'; svc-introspect
// publish resolves the servers' configuration the same way, to know which
// schemas they expose. It links no part of the HTTP server.
package dbconfig
