/** Builds the Fastify application: body formats, the kernel's calls, error mapping, OpenAPI at /docs. */
import Fastify, { LogController, type FastifyInstance, type FastifyError, type FastifyReply } from 'fastify';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { DomainError, invalidParams } from '../core/errors.ts';
import { bodyTooLarge, errorBody, httpStatus, noteAnswerCode } from './errors.ts';
import { mountCalls, type CallDef, type Services } from './kernel.ts';
import { redactError, redactUrl, secretsOf } from './log-redaction.ts';
import { openApiDocument } from './openapi.ts';
import type { Ops } from './ops.ts';
import { userCalls } from './user.ts';
import { trackerCalls } from './tracker.ts';
import { trackerSettingsCalls } from './tracker-settings.ts';
import { trackerStateCalls } from './tracker-state.ts';
import { chatCalls } from './chat.ts';
import { tagCalls } from './tag.ts';
import { fieldCalls } from './field.ts';
import { geocoderCalls } from './geocoder.ts';
import { placeCalls } from './place.ts';
import { zoneCalls } from './zone.ts';
import { taskCalls } from './task.ts';
import { routeCalls } from './route.ts';
import { employeeCalls } from './employee.ts';
import { departmentCalls } from './department.ts';
import { trackCalls } from './track.ts';
import { statusCalls } from './status.ts';
import { deliveryCalls } from './delivery.ts';
import { formTemplateCalls } from './form-template.ts';
import { taskFormCalls } from './task-form.ts';
import { appCalls } from './app.ts';
import { appFormCalls } from './app-forms.ts';
import { attachTaskWatch } from './app-watch.ts';
import { attachLive } from './live.ts';
import type { LiveHub } from './live-hub.ts';
import { fileCalls, fileRoutes } from './file.ts';
import { avatarCalls } from './avatar.ts';
import { checkinCalls } from './checkin.ts';
import { retranslatorCalls } from './retranslator.ts';
import { mapLayerCalls } from './map-layer.ts';
import { taskScheduleCalls } from './task-schedule.ts';
import { routeScheduleCalls } from './route-schedule.ts';
import { reportCalls } from './report.ts';
import { reportScheduleCalls } from './report-schedule.ts';
import { userSettingsCalls } from './user-settings.ts';
import { historyCalls } from './history.ts';
import { mountConsole, type ConsoleSite } from './console.ts';
import { mountFieldApp } from './field-app-site.ts';

/** Every call of the API, in one list (the rights test and OpenAPI read it too). */
export const allCalls: CallDef[] = [...userCalls, ...trackerCalls, ...trackerSettingsCalls, ...trackerStateCalls, ...chatCalls, ...tagCalls, ...fieldCalls, ...placeCalls, ...zoneCalls, ...taskCalls, ...routeCalls, ...employeeCalls, ...departmentCalls, ...geocoderCalls, ...trackCalls, ...statusCalls, ...deliveryCalls, ...formTemplateCalls, ...taskFormCalls, ...fileCalls, ...avatarCalls, ...checkinCalls, ...appCalls, ...appFormCalls, ...retranslatorCalls, ...mapLayerCalls, ...taskScheduleCalls, ...routeScheduleCalls, ...reportCalls, ...userSettingsCalls, ...historyCalls, ...reportScheduleCalls] as CallDef[];

/** A file part of a multipart upload, as handlers receive it (the shape lives on the ground floor). */
export type { UploadedFile } from '../core/upload.ts';

/**
 * `logStream`: where log lines go (default stdout); tests read the log from it. `ops`: /metrics, /health, /ready (src/api/ops.ts).
 * `live`: the live channel's hub (src/api/live-hub.ts), for the gateway to tell of new data; a new one when absent.
 */
export async function buildApi(services: Services, opts: { logger?: boolean; calls?: CallDef[]; logStream?: NodeJS.WritableStream; ops?: Ops; live?: LiveHub } = {}): Promise<FastifyInstance> {
  const { config } = services;
  const calls = opts.calls ?? allCalls;
  const requestLogging = ['debug', 'trace'].includes(config.logLevel);
  const app = Fastify({
    bodyLimit: config.http.bodyLimit,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    // The router's own refusals (a path segment over 100 characters, a malformed URL) answer our
    // envelope: code 7 naming the path, instead of the framework's JSON.
    frameworkErrors: (error, request, reply) => {
      const what = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'a path segment is longer than 100 characters' : error.code === 'FST_ERR_BAD_URL' ? 'malformed URL' : undefined;
      const e = what ? invalidParams([{ parameter: '(path)', error: what }]) : new DomainError(1);
      noteAnswerCode(request, e.code);
      return (reply as FastifyReply).code(httpStatus(e)).send(errorBody(e));
    },
    // Per-request lines only when debugging: at full load they would cost more than the calls.
    logController: new LogController({ disableRequestLogging: !requestLogging }),
    // Without request logging, no child logger per request (a measurable share of a light call):
    // errors are still logged, without the request id.
    childLoggerFactory: requestLogging ? undefined : (logger) => logger,
    logger:
      opts.logger === false
        ? false
        : {
            level: config.logLevel,
            ...(opts.logStream ? { stream: opts.logStream } : {}),
            // Session hashes and passwords never reach the log: not in URLs, not in headers, not in
            // error lines (log-redaction.ts).
            redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'password', 'hash'], censor: '[redacted]' },
            serializers: {
              req: (req) => ({ method: req.method, url: redactUrl(String(req.url)), remoteAddress: req.ip }),
            },
          },
  });

  await app.register(formbody);
  app.setErrorHandler((error: FastifyError, request, reply) => {
    // Errors before a call runs: malformed bodies, oversized bodies, bad content types.
    let e: DomainError;
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.statusCode === 413) {
      e = bodyTooLarge(config.http.bodyLimit);
      noteAnswerCode(request, 7);
      return reply.code(httpStatus(e)).send(errorBody(e));
    }
    if (error.statusCode && error.statusCode < 500) {
      const what = error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ? `unsupported content type ${request.headers['content-type']}` : `malformed request body: ${error.message}`;
      e = new DomainError(7, { errors: [{ parameter: '(body)', error: what }] }, `Invalid parameters: ${what}`);
      noteAnswerCode(request, 7);
      return reply.code(httpStatus(e)).send(errorBody(e));
    }
    request.log.error({ err: redactError(error, secretsOf(request)) }, 'request failed');
    e = new DomainError(1);
    noteAnswerCode(request, 1);
    return reply.code(httpStatus(e)).send(errorBody(e));
  });

  let site: ConsoleSite | undefined;
  let appSite: ConsoleSite | undefined;
  app.setNotFoundHandler((request, reply) => {
    // A browser's deep link into the console (/history) gets its page; everything else the API's answer.
    if (site?.fallback(request, reply) || appSite?.fallback(request, reply)) return;
    const path = String(request.url).split('?')[0];
    noteAnswerCode(request, 3);
    const e = new DomainError(3, {}, `Unknown API call: ${request.method} ${path}. Calls live under /v2/fsm/ (also /v2/ and /api-v2/); see /docs`);
    return reply.code(httpStatus(e)).send(errorBody(e));
  });

  await app.register(swagger, { mode: 'static', specification: { document: openApiDocument(calls) as never } });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  opts.ops?.mount(app); // before the calls: its hook counts every one
  attachTaskWatch(app, services); // app/task/watch's streams end when the server closes
  attachLive(app, services, opts.live); // the WebSocket at <mount>event/subscription (docs/live.md)
  mountCalls(app, calls.filter((c) => !c.upload), services);
  // Upload calls in their own context: the multipart plugin's hooks then cost nothing to the other calls.
  await app.register(async (uploads) => {
    // The plugin only marks multipart requests here: the kernel reads their parts itself, the session
    // first (kernel.ts readUpload, src/api/multipart.ts).
    await uploads.register(multipart);
    mountCalls(uploads, calls.filter((c) => c.upload), services);
  });
  // File uploads streamed to disk and downloads (docs/files.md), in their own context.
  await app.register(fileRoutes(services));
  // The operator console at / (docs/console.md).
  site = await mountConsole(app, config);
  // The field app at /app/ (docs/field-app.md, "The app").
  appSite = await mountFieldApp(app, config.fieldApp.dir);
  return app;
}
