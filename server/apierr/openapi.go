package apierr

// OpenAPIDisabled is SVC126: openapi-mode is disabled, so the root
// endpoint has nothing to describe.
func OpenAPIDisabled() *Error {
	return &Error{Status: 404, Code: code("126"), Message: "Root endpoint metadata is disabled"}
}

// UndefinedRole answers, without asking the database, a token naming a
// role the snapshot does not know, as PostgreSQL's SET ROLE would (SQLSTATE
// 22023): the token is at fault, so 401 with a challenge, like FromPG.
func UndefinedRole(role string) *Error {
	return &Error{Status: 401, Code: "22023", Message: `role "` + role + `" does not exist`,
		Headers: map[string]string{"WWW-Authenticate": "Bearer"}}
}
