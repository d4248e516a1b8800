// Renders the service's OpenAPI document with Swagger UI. URLs are relative
// to the page (/docs), so it works behind a path prefix too; nothing is
// loaded from another host (no validator badge).
(function () {
  "use strict";
  var root = new URL(".", document.baseURI);
  fetch(new URL("api/openapi.json", root), { headers: { Accept: "application/json" } })
    .then(function (resp) {
      if (!resp.ok) throw new Error("GET api/openapi.json answered " + resp.status);
      return resp.json();
    })
    .then(function (spec) {
      // "Try it out" sends requests to the instance serving this page.
      spec.servers = [{ url: root.href.replace(/\/$/, ""), description: "This service" }];
      window.ui = SwaggerUIBundle({
        spec: spec,
        dom_id: "#swagger-ui",
        validatorUrl: null,
        queryConfigEnabled: false,
        displayOperationId: true,
        deepLinking: true,
        filter: true,
        docExpansion: "list",
        defaultModelsExpandDepth: 0,
      });
    })
    .catch(function (err) {
      var p = document.createElement("p");
      p.textContent = "The OpenAPI document could not be loaded: " + err.message;
      document.getElementById("swagger-ui").appendChild(p);
    });
})();
