module github.com/svc-dev/svc

go 1.26.8

require (
	github.com/jackc/pgx/v5 v5.12.0
	github.com/vmihailenco/msgpack/v5 v5.4.1
)

require (
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/vmihailenco/tagparser/v2 v2.0.0 // indirect
	golang.org/x/text v0.41.0 // indirect
)
