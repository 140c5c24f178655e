package catalog

import _ "embed"

// Each catalog query lives in its own file so it can be read, run by hand in
// psql and diffed as SQL. Schema lists are bound as text[] and oid sets as
// oid[], so each query runs once however many objects there are.
var (
	//go:embed queries/header.sql
	headerSQL string
	//go:embed queries/relations.sql
	relationsSQL string
	//go:embed queries/columns.sql
	columnsSQL string
	//go:embed queries/views.sql
	viewsSQL string
	//go:embed queries/keys.sql
	keysSQL string
	//go:embed queries/foreign_keys.sql
	foreignKeysSQL string
	//go:embed queries/functions.sql
	functionsSQL string
	//go:embed queries/computed_fields.sql
	computedFieldsSQL string
	//go:embed queries/casts.sql
	castsSQL string
	//go:embed queries/roles.sql
	rolesSQL string
	//go:embed queries/media_handlers.sql
	mediaHandlersSQL string
	//go:embed queries/domains.sql
	domainsSQL string
	//go:embed queries/types.sql
	typesSQL string
)
