/** A Client ID Metadata Document as an MCP client publishes it at `clientId`, with `fields` changed. */
export function clientMetadataDocument(clientId: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    client_id: clientId,
    client_name: 'Example <MCP> Client',
    redirect_uris: ['http://127.0.0.1/callback', 'https://mcp-client.test/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...fields,
  };
}
