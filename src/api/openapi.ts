/** OpenAPI 3 generated from the call declarations (each call's zod schema is its request body). */
import { z } from 'zod';
import { ERRORS } from './errors.ts';
import type { CallDef } from './kernel.ts';

export function openApiDocument(calls: CallDef[]): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const c of calls) {
    let schema: Record<string, unknown>;
    try {
      schema = z.toJSONSchema(c.params, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    } catch {
      schema = { type: 'object' };
    }
    delete schema.$schema;
    const access = c.access ?? 'session';
    const description = [
      c.summary,
      access === 'public' ? 'No session needed.' : access === 'activation' ? 'Takes only the hash from an activation e-mail.' : access === 'device' ? "Takes only the field app's device token (docs/field-app.md)." : 'Needs a session hash.',
      c.right ? (c.right === 'admin' ? 'Master users only.' : `Sub-users need the right \`${c.right}\`.`) : '',
    ]
      .filter(Boolean)
      .join(' ');
    const contentType = c.upload ? 'multipart/form-data' : 'application/json';
    paths[`/v2/fsm/${c.path}`] = {
      post: {
        tags: [c.path.split('/')[0]],
        summary: c.summary,
        description,
        operationId: c.path.replace(/\//g, '_'),
        security: access === 'public' ? [] : [{ hash: [] }],
        requestBody: { content: { [contentType]: { schema }, 'application/x-www-form-urlencoded': { schema } } },
        responses: {
          200: { description: 'success', content: { 'application/json': { schema: { $ref: '#/components/schemas/Success' } } } },
          default: { description: 'failure', content: { 'application/json': { schema: { $ref: '#/components/schemas/Failure' } } } },
        },
      },
    };
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'Field service and tracking API',
      version: '2',
      description: `All calls also answer GET with parameters in the query string, and are mounted under /v2/fsm/, /v2/ and /api-v2/. Error codes: ${Object.keys(ERRORS).join(', ')} (see docs/errors.md).`,
    },
    components: {
      securitySchemes: { hash: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'NVX <session hash>; or pass hash as a parameter' } },
      schemas: {
        Success: { type: 'object', properties: { success: { type: 'boolean', enum: [true] } }, required: ['success'] },
        Failure: {
          type: 'object',
          properties: {
            success: { type: 'boolean', enum: [false] },
            status: { type: 'object', properties: { code: { type: 'integer' }, description: { type: 'string' } }, required: ['code', 'description'] },
            errors: { type: 'array', items: { type: 'object', properties: { parameter: { type: 'string' }, error: { type: 'string' } } } },
          },
          required: ['success', 'status'],
        },
      },
    },
    paths,
  };
}
