// Starts Swagger UI on the API's OpenAPI 3.1 description. The page's
// body names the API's root relative to the page (data-root), so the page
// works behind a proxy that moves the API under a base path. The script is
// a file of its own, as the page's Content-Security-Policy runs no inline
// script.
"use strict";
window.addEventListener("load", function () {
  var root = new URL(document.body.dataset.root, window.location.href).href;
  window.ui = SwaggerUIBundle({
    url: root,
    dom_id: "#swagger-ui",
    deepLinking: true,
    // Swagger UI would otherwise send the document to an online validator.
    validatorUrl: null,
    requestInterceptor: function (req) {
      if (req.loadSpec) {
        req.headers.Accept = "application/openapi+json;version=3.1";
      }
      return req;
    },
  });
});
