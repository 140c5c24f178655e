// Package request turns an HTTP request into a typed Request: the target
// (relation, function or root), the select list, filters, order, range,
// preferences and media types. It is pure: no database, no snapshot, so every
// grammar rule is tested on its own, and every malformed input becomes an
// SVC1xx *apierr.Error here rather than SQL further down. A Template is a
// read's shape, read without parsing it whole, under which the server
// keeps the read's statements.
package request
