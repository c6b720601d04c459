#!/usr/bin/env python3
"""A generated stand-in for Microsoft Graph's published OpenAPI document (msgraph-metadata
openapi/v1.0/openapi.yaml, about 35 MB of block-style YAML), for tests/bench/import-scale.sh
when the real one is not at hand: the same shape at the same size, not its content.

Shape copied: OpenAPI 3.0, block-style YAML; thousands of paths under /users/{user-id}/…,
/groups/{group-id}/…, /me/… and more roots, each a collection (GET list with $top/$skip/
$search/$filter/$orderby/$select/$expand/$count, POST) and an item (GET, PATCH, DELETE) with
`{x-id}` path parameters; operations tagged `users.message`-style with operationIds
`users.ListMessages`-style; every body and answer a `$ref` into components (schemas named
`microsoft.graph.message`, collection responses, `microsoft.graph.ODataErrors.ODataError`),
schemas that reference each other (navigation properties, allOf with a base entity).

    python3 tests/bench/graph_like.py [MEGABYTES] > graph-like.yaml     (default 35)
"""

import sys

ROOTS = [
    ("users", "user-id"), ("groups", "group-id"), ("me", None), ("sites", "site-id"),
    ("teams", "team-id"), ("drives", "drive-id"), ("devices", "device-id"),
    ("servicePrincipals", "servicePrincipal-id"), ("applications", "application-id"),
    ("contacts", "orgContact-id"), ("chats", "chat-id"), ("places", "place-id"),
]
# Navigation properties: mail, calendar and drive first, as Graph's user has them.
NAVS = [
    "messages", "mailFolders", "events", "calendar", "calendars", "calendarView",
    "calendarGroups", "drive", "drives", "contacts", "contactFolders", "people", "photos",
    "outlook", "inferenceClassification", "onenote", "planner", "todo", "insights",
    "activities", "agreementAcceptances", "appRoleAssignments", "authentication",
    "chats", "createdObjects", "deviceManagementTroubleshootingEvents", "directReports",
    "extensions", "followedSites", "joinedTeams", "licenseDetails", "managedAppRegistrations",
    "managedDevices", "memberOf", "oauth2PermissionGrants", "onlineMeetings",
    "ownedDevices", "ownedObjects", "presence", "registeredDevices", "scopedRoleMemberOf",
    "settings", "teamwork", "transitiveMemberOf", "employeeExperience", "solutions",
]
SUBS = [
    "attachments", "extensions", "multiValueExtendedProperties", "singleValueExtendedProperties",
    "instances", "children", "items", "permissions", "versions", "thumbnails", "members",
    "messages", "childFolders", "rules", "columns", "contentTypes", "lists", "operations",
]
ODATA = [("$top", "integer"), ("$skip", "integer"), ("$search", "string"),
         ("$filter", "string"), ("$count", "boolean"), ("$orderby", "array"),
         ("$select", "array"), ("$expand", "array")]


def singular(word):
    if word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") else word


def schema(name, k, out):
    out.append(f"    microsoft.graph.{name}:\n")
    out.append("      allOf:\n        - $ref: '#/components/schemas/microsoft.graph.entity'\n")
    out.append(f"        - title: {name}\n          required:\n            - '@odata.type'\n")
    out.append("          type: object\n          properties:\n")
    for i in range(14):
        out.append(f"            property{i}OfThe{name[:1].upper()}{name[1:]}:\n")
        if i % 4 == 0:
            other = NAVS[(k + i) % len(NAVS)]
            out.append("              type: array\n              items:\n")
            out.append(f"                $ref: '#/components/schemas/microsoft.graph.{singular(other)}'\n")
            out.append("              description: The navigation property. Read-only. Nullable.\n")
            out.append("              x-ms-navigationProperty: true\n")
        elif i % 4 == 1:
            out.append("              pattern: '^[0-9]{4,}-(0[1-9]|1[012])-(0[1-9]|[12][0-9]|3[01])T'\n")
            out.append("              type: string\n              format: date-time\n")
            out.append("              description: The date and time, in ISO 8601 format and always in UTC time.\n")
            out.append("              nullable: true\n")
        else:
            out.append("              type: string\n")
            out.append("              description: A property of the resource, as Graph describes it in one or two sentences.\n")
            out.append("              nullable: true\n")
    out.append("          description: A resource of Microsoft Graph.\n")
    out.append(f"    microsoft.graph.{name}CollectionResponse:\n")
    out.append("      title: Collection of items\n      type: object\n      allOf:\n")
    out.append("        - $ref: '#/components/schemas/BaseCollectionPaginationCountResponse'\n")
    out.append("        - type: object\n          properties:\n            value:\n")
    out.append(f"              type: array\n              items:\n                $ref: '#/components/schemas/microsoft.graph.{name}'\n")


def parameter(name, out):
    out.append(f"        - name: {name}\n          in: path\n          description: The unique identifier of {name[:-3]}\n")
    out.append("          required: true\n          schema:\n            type: string\n")
    out.append(f"          x-ms-docs-key-type: {name[:-3]}\n")


def operation(verb, tag, op_id, summary, item, ref, keys, out, collection):
    out.append(f"    {verb}:\n      tags:\n        - {tag}\n      summary: {summary}\n")
    out.append(f"      description: {summary} of the resource, with its properties and relationships.\n")
    out.append(f"      externalDocs:\n        description: Find more info here\n")
    out.append(f"        url: https://learn.microsoft.com/graph/api/{op_id.lower().replace('.', '-')}?view=graph-rest-1.0\n")
    out.append(f"      operationId: {op_id}\n")
    if keys or (verb == "get" and collection):
        out.append("      parameters:\n")
        for k in keys:
            parameter(k, out)
        if verb == "get" and collection:
            for name, kind in ODATA:
                out.append(f"        - name: {name}\n          in: query\n          description: OData query option {name}\n")
                out.append("          style: form\n          explode: false\n          schema:\n")
                if kind == "array":
                    out.append("            uniqueItems: true\n            type: array\n            items:\n              type: string\n")
                else:
                    out.append(f"            type: {kind}\n")
    if verb in ("post", "patch"):
        out.append("      requestBody:\n        description: New navigation property values\n")
        out.append(f"        content:\n          application/json:\n            schema:\n              $ref: '#/components/schemas/microsoft.graph.{item}'\n")
        out.append("        required: true\n")
    out.append("      responses:\n")
    if verb == "delete":
        out.append("        2XX:\n          description: Success\n")
    else:
        out.append(f"        2XX:\n          description: Retrieved\n          content:\n            application/json:\n              schema:\n                $ref: '#/components/schemas/{ref}'\n")
    out.append("        4XX:\n          $ref: '#/components/responses/error'\n")
    out.append("        5XX:\n          $ref: '#/components/responses/error'\n")
    if verb == "get" and collection:
        out.append("      x-ms-pageable:\n        nextLinkName: '@odata.nextLink'\n        operationName: listMore\n")


def paths(limit, out):
    written = 0
    for depth in range(3):
        for root, root_key in ROOTS:
            for n, nav in enumerate(NAVS):
                # The person's own resources are most of Graph's paths (users and me alike).
                wide = root in ("users", "me", "groups")
                subs = SUBS[: depth * 9] if wide else SUBS[: depth * 2]
                for sub in [None] if depth == 0 else subs:
                    base = f"/{root}" + (f"/{{{root_key}}}" if root_key else "")
                    keys = [root_key] if root_key else []
                    item = singular(nav)
                    segs = [nav]
                    if sub:
                        keys.append(f"{item}-id")
                        segs = [nav, f"{{{item}-id}}", sub]
                        item = singular(sub)
                    tag = f"{root}.{item}"
                    collection = "/".join([base] + segs)
                    name = "".join(s[:1].upper() + s[1:] for s in segs if not s.startswith("{"))
                    out.append(f"  {collection}:\n")
                    for verb, word in (("get", "List"), ("post", "Create")):
                        ref = f"microsoft.graph.{item}CollectionResponse" if verb == "get" else f"microsoft.graph.{item}"
                        operation(verb, tag, f"{root}.{word}{name}", f"{word} {item}", item, ref, keys, out, True)
                    out.append(f"  {collection}/{{{item}-id}}:\n")
                    for verb, word in (("get", "Get"), ("patch", "Update"), ("delete", "Delete")):
                        operation(verb, tag, f"{root}.{word}{name}", f"{word} {item}", item,
                                  f"microsoft.graph.{item}", keys + [f"{item}-id"], out, False)
                    written += 2
                    if sum(map(len, out)) > limit:
                        return written
    return written


def main():
    megabytes = float(sys.argv[1]) if len(sys.argv) > 1 else 35.0
    limit = int(megabytes * 1_000_000)
    head = ["openapi: 3.0.4\ninfo:\n  title: OData Service for namespace microsoft.graph\n",
            "  description: A generated stand-in shaped like Microsoft Graph v1.0 (not its content).\n",
            "  version: v1.0\nservers:\n  - url: https://graph.microsoft.com/v1.0\n",
            "    description: Core\npaths:\n"]
    components = ["components:\n  schemas:\n",
                  "    microsoft.graph.entity:\n      title: entity\n      type: object\n      properties:\n",
                  "        id:\n          type: string\n          description: The unique identifier for an entity. Read-only.\n",
                  "    BaseCollectionPaginationCountResponse:\n      title: Base collection pagination and count responses\n",
                  "      type: object\n      properties:\n        '@odata.count':\n          type: integer\n          format: int64\n          nullable: true\n",
                  "        '@odata.nextLink':\n          type: string\n          nullable: true\n",
                  "    microsoft.graph.ODataErrors.ODataError:\n      required:\n        - error\n      type: object\n",
                  "      properties:\n        error:\n          type: object\n          properties:\n",
                  "            code:\n              type: string\n            message:\n              type: string\n"]
    names = sorted({singular(w) for w in NAVS + SUBS} | {singular(r) for r, _ in ROOTS})
    # Graph has well over a thousand types; a slice of a few paths reaches few of them.
    names += [f"{names[k % len(names)]}Type{k}" for k in range(1200)]
    for k, name in enumerate(names):
        schema(name, k, components)
    components.append("  responses:\n    error:\n      description: error\n      content:\n")
    components.append("        application/json:\n          schema:\n            $ref: '#/components/schemas/microsoft.graph.ODataErrors.ODataError'\n")
    body = []
    budget = limit - sum(map(len, head)) - sum(map(len, components))
    count = paths(budget, body)
    sys.stdout.write("".join(head) + "".join(body) + "".join(components))
    sys.stderr.write(f"graph_like.py: {count} paths, {len(names)} entity schemas, "
                     f"{(sum(map(len, head + body + components))) / 1e6:.1f} MB\n")


if __name__ == "__main__":
    main()
