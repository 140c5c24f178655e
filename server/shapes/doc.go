// Package shapes is the shape cache: what the server keeps of a request's
// shape (its statements with the values taken out, and what answering it
// takes) so that a later request of the shape skips parsing, planning and
// building. It is the one place that builds the keys shapes are found by
// (request.Template for reads and calls, request.WriteKey for inserts),
// bounds each part by entries and by estimated memory, and estimates what
// the texts a shape keeps of a request cost (Texts, Detach). It knows no
// HTTP beyond reading a request's key, and never the database.
package shapes
