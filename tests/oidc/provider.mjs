// tests/oidc/provider.mjs PORT: a test OpenID Connect provider for peto's
// sign-in tests, panva's oidc-provider (pinned in package-lock.json here) on
// http://127.0.0.1:PORT, which is also its issuer (no trailing slash). Start it
// with tests/oidc/provider PORT (it installs the node modules first). PORT 0
// takes a free port. Its stdout is one line, "ready http://127.0.0.1:PORT", once
// it answers; everything else (an access log, oidc-provider's notices) goes to
// stderr. Everything lives in memory and is gone when it exits.
//
// Clients (authorization code + PKCE S256 required, client_secret_basic only,
// scopes openid email profile; the scopes' claims are in the ID token):
//   peto-rs / rs-secret   ID tokens signed RS256 with kid "rsa-1"
//   peto-es / es-secret   ID tokens signed ES256 with kid "ec-1"
// Both keys are generated at every start (GET /jwks has the public halves).
//
// Redirect URIs: both clients accept http://127.0.0.1:<any port>/signin/oidc/callback
// and nothing else. They are registered as application_type "native" with
// redirect_uris ["http://127.0.0.1/signin/oidc/callback"]: for native clients
// oidc-provider compares loopback http redirect URIs without their port
// (RFC 8252 section 7.3), so peto's test server can sit on any port. No patch of
// oidc-provider's code is needed for that; "native" changes nothing else here
// (it only makes oidc-provider always ask for consent, which the automatic
// interaction below gives).
//
// No login page: GET /interaction/:uid signs in as the current test account and
// grants the requested scopes at once, then sends the browser on. Every
// authorization request is a fresh sign-in: the provider's own session cookie
// is ignored on /auth, so a test may change the account between two sign-ins
// with the same cookie jar.
//
// Control endpoints (JSON in, JSON out; 400 {"error": "..."} on a bad body):
//   POST /test/account {"sub": "...", "email": "...", "email_verified": ...}
//        The account the next authorizations sign in as (it stays until the
//        next POST). "sub" is required (a non-empty string); "email",
//        "email_verified" and "name" are optional and returned exactly as given
//        (the string "true" stays a string), or left out when absent.
//        Answers {"ok": true, "account": {...}}. Without any account the
//        authorization ends with error=access_denied at the redirect URI.
//   POST /test/tamper {"mode": M}
//        The next token response that carries an id_token carries it altered,
//        then the mode goes back to "none". M is one of: none; wrong_aud
//        (aud "someone-else"); wrong_iss (iss "http://127.0.0.1:1"); expired
//        (exp now-600, iat now-1200); wrong_nonce (nonce "not-the-nonce") -
//        these four re-signed with the provider's real key of the same kid and
//        alg; bad_signature (same header and claims, signed by a fresh key of
//        the same type under the same kid); alg_none (header {"alg":"none"},
//        empty signature); hs256 (header {"alg":"HS256"}, HMAC-SHA256 with the
//        client's secret as the key). Answers {"ok": true, "mode": M}.
//        GET /test/tamper answers {"mode": M} (the pending one).
//   GET /test/last-token-request
//        What the last POST /token sent: {"grant_type", "code_present",
//        "code_verifier_present", "code_verifier", "redirect_uri",
//        "client_id_in_body", "client_secret_in_body", "basic_auth",
//        "basic_client_id", "status", "error", "id_token_tampered"}; null before
//        the first one.
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';

import Provider, { interactionPolicy } from 'oidc-provider';
import { CompactSign, exportJWK, generateKeyPair } from 'jose';

// oidc-provider prints its notices with console.info; stdout is for "ready" only.
console.info = console.error;

const log = (...args) => console.error('oidc-provider-test:', ...args);

const portArg = process.argv[2];
if (portArg === undefined || !/^\d+$/.test(portArg) || Number(portArg) > 65535) {
  console.error('usage: tests/oidc/provider PORT');
  process.exit(2);
}

const CLIENTS = [
  { client_id: 'peto-rs', client_secret: 'rs-secret', alg: 'RS256' },
  { client_id: 'peto-es', client_secret: 'es-secret', alg: 'ES256' },
];
const SECRETS = new Map(CLIENTS.map((c) => [c.client_id, c.client_secret]));
const SCOPES = ['openid', 'email', 'profile'];
const TAMPER_MODES = new Set(['none', 'wrong_aud', 'wrong_iss', 'expired', 'bad_signature',
  'alg_none', 'hs256', 'wrong_nonce']);

// The signing keys: private CryptoKeys by kid, for re-signing tampered tokens.
const KEYS = [
  { kid: 'rsa-1', alg: 'RS256', options: { modulusLength: 2048 } },
  { kid: 'ec-1', alg: 'ES256', options: {} },
];
const privateKeys = new Map();
const jwks = { keys: [] };
for (const { kid, alg, options } of KEYS) {
  const { privateKey } = await generateKeyPair(alg, { ...options, extractable: true });
  privateKeys.set(kid, { key: privateKey, alg, options });
  jwks.keys.push({ ...await exportJWK(privateKey), kid, alg, use: 'sig' });
}

// The test state.
const accounts = new Map(); // sub -> claims
let currentSub;
let tamperMode = 'none';
let lastTokenRequest = null;

// ---- small helpers -------------------------------------------------------

const b64u = (value) => Buffer.from(value).toString('base64url');
const fromB64u = (text) => JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));

async function readJson(ctx) {
  const chunks = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += chunk.length;
    if (size > 64 * 1024) throw new Error('body too large');
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  const value = JSON.parse(text === '' ? '{}' : text);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error('the body must be a JSON object');
  }
  return value;
}

function answer(ctx, status, body) {
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'application/json';
  ctx.body = `${JSON.stringify(body)}\n`;
}

async function sign(header, payload, key) {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader(header)
    .sign(key);
}

// The id_token as the tamper mode wants it.
async function tamper(idToken, mode) {
  const [h, p] = idToken.split('.');
  const header = fromB64u(h);
  const payload = fromB64u(p);
  const real = privateKeys.get(header.kid);
  if (!real) throw new Error(`no key with kid ${header.kid}`);
  const now = Math.floor(Date.now() / 1000);
  switch (mode) {
    case 'wrong_aud':
      return sign(header, { ...payload, aud: 'someone-else' }, real.key);
    case 'wrong_iss':
      return sign(header, { ...payload, iss: 'http://127.0.0.1:1' }, real.key);
    case 'expired':
      return sign(header, { ...payload, exp: now - 600, iat: now - 1200 }, real.key);
    case 'wrong_nonce':
      return sign(header, { ...payload, nonce: 'not-the-nonce' }, real.key);
    case 'bad_signature': {
      const { privateKey } = await generateKeyPair(real.alg, real.options);
      return sign(header, payload, privateKey);
    }
    case 'alg_none':
      return `${b64u(JSON.stringify({ alg: 'none' }))}.${b64u(JSON.stringify(payload))}.`;
    case 'hs256': {
      const aud = Array.isArray(payload.aud) ? payload.aud[0] : payload.aud;
      const secret = SECRETS.get(aud);
      if (!secret) throw new Error(`no client secret for aud ${aud}`);
      const input = `${b64u(JSON.stringify({ alg: 'HS256' }))}.${b64u(JSON.stringify(payload))}`;
      return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
    }
    default:
      throw new Error(`unknown tamper mode ${mode}`);
  }
}

// ---- the provider --------------------------------------------------------

function makeProvider(issuer) {
  const policy = interactionPolicy.base();

  const provider = new Provider(issuer, {
    clients: CLIENTS.map(({ client_id, client_secret, alg }) => ({
      client_id,
      client_secret,
      application_type: 'native', // loopback redirect URIs match on any port
      redirect_uris: ['http://127.0.0.1/signin/oidc/callback'],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: alg,
    })),
    jwks,
    enabledJWA: { idTokenSigningAlgValues: ['RS256', 'ES256'] },
    scopes: SCOPES,
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name'],
    },
    // The scopes' claims in the ID token too (by default they would only be
    // at the userinfo endpoint once an access token is issued).
    conformIdTokenClaims: false,
    // PKCE for every client (by default only for public clients).
    pkce: { required: () => true },
    // Only HTTP Basic at the token endpoint: by default oidc-provider takes a
    // client_secret in the form body from a client_secret_basic client too.
    clientAuthMethods: ['client_secret_basic'],
    responseTypes: ['code'],
    features: {
      devInteractions: { enabled: false },
      // Everything else of the quick start stays as it is (userinfo,
      // rpInitiatedLogout on; registration, introspection off).
    },
    interactions: {
      policy,
      url: (ctx, interaction) => `/interaction/${interaction.uid}`,
    },
    async findAccount(ctx, sub) {
      const claims = accounts.get(sub);
      if (!claims) return undefined;
      return { accountId: sub, claims: async () => ({ ...claims }) };
    },
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 600,
      Grant: 600,
      Session: 600,
    },
    renderError(ctx, out, error) {
      log('error page:', JSON.stringify(out), error?.message ?? '');
      ctx.type = 'json';
      ctx.body = out;
    },
  });

  provider.on('server_error', (ctx, err) => log('server_error', err));

  // An access log.
  provider.use(async (ctx, next) => {
    const started = Date.now();
    try {
      await next();
    } finally {
      log(`${ctx.method} ${ctx.path} -> ${ctx.status} (${Date.now() - started} ms)`);
    }
  });

  // The control endpoints.
  provider.use(async (ctx, next) => {
    if (!ctx.path.startsWith('/test/')) return next();
    const route = `${ctx.method} ${ctx.path}`;
    try {
      switch (route) {
        case 'POST /test/account': {
          const body = await readJson(ctx);
          if (typeof body.sub !== 'string' || body.sub === '') {
            return answer(ctx, 400, { error: '"sub" must be a non-empty string' });
          }
          const claims = { sub: body.sub };
          for (const name of ['email', 'email_verified', 'name']) {
            if (body[name] !== undefined) claims[name] = body[name];
          }
          accounts.set(body.sub, claims);
          currentSub = body.sub;
          return answer(ctx, 200, { ok: true, account: claims });
        }
        case 'POST /test/tamper': {
          const body = await readJson(ctx);
          if (!TAMPER_MODES.has(body.mode)) {
            return answer(ctx, 400, { error: `"mode" must be one of ${[...TAMPER_MODES].join(', ')}` });
          }
          tamperMode = body.mode;
          return answer(ctx, 200, { ok: true, mode: tamperMode });
        }
        case 'GET /test/tamper':
          return answer(ctx, 200, { mode: tamperMode });
        case 'GET /test/last-token-request':
          return answer(ctx, 200, lastTokenRequest);
        default:
          return answer(ctx, 404, { error: `no control endpoint ${route}` });
      }
    } catch (err) {
      return answer(ctx, 400, { error: err.message });
    }
  });

  // Every authorization is a fresh sign-in: hide the provider's session
  // cookie from the authorization endpoint (and its resume step), so a login
  // remembered from an earlier sign-in neither skips the interaction nor
  // clashes with a different account.
  const sessionCookie = /^_session(\.sig)?=/;
  provider.use(async (ctx, next) => {
    if ((ctx.path === '/auth' || ctx.path.startsWith('/auth/')) && ctx.req.headers.cookie) {
      const kept = ctx.req.headers.cookie.split(/;\s*/).filter((c) => !sessionCookie.test(c));
      if (kept.length) ctx.req.headers.cookie = kept.join('; ');
      else delete ctx.req.headers.cookie;
    }
    return next();
  });

  // The automatic interaction: sign in as the current account, grant what was asked.
  provider.use(async (ctx, next) => {
    const match = /^\/interaction\/([^/]+)$/.exec(ctx.path);
    if (!match || ctx.method !== 'GET') return next();
    const interaction = await provider.interactionDetails(ctx.req, ctx.res);
    if (interaction.uid !== match[1]) {
      return answer(ctx, 400, { error: 'interaction cookie and URL do not match' });
    }
    const { params, prompt } = interaction;
    let result;
    const claims = currentSub === undefined ? undefined : accounts.get(currentSub);
    if (!claims) {
      result = { error: 'access_denied', error_description: 'no test account (POST /test/account first)' };
    } else {
      const grant = new provider.Grant({ accountId: claims.sub, clientId: params.client_id });
      const scopes = String(params.scope ?? '').split(' ').filter((s) => SCOPES.includes(s));
      grant.addOIDCScope(scopes.join(' '));
      if (prompt.details?.missingOIDCClaims) grant.addOIDCClaims(prompt.details.missingOIDCClaims);
      for (const [indicator, s] of Object.entries(prompt.details?.missingResourceScopes ?? {})) {
        grant.addResourceScope(indicator, s.join(' '));
      }
      const grantId = await grant.save();
      result = { login: { accountId: claims.sub }, consent: { grantId } };
    }
    log(`interaction ${interaction.uid} (${prompt.name}: ${prompt.reasons.join(', ')}) for ${params.client_id}:`,
      result.error ? result.error_description : `signed in as ${claims.sub}, granted "${params.scope}"`);
    const returnTo = await provider.interactionResult(ctx.req, ctx.res, result,
      { mergeWithLastSubmission: false });
    ctx.status = 303;
    ctx.set('Location', returnTo);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = '';
  });

  // The token endpoint: remember what was sent; tamper with the answer's id_token.
  provider.use(async (ctx, next) => {
    if (ctx.method !== 'POST' || ctx.path !== '/token') return next();
    await next();
    const body = ctx.oidc?.body ?? {};
    const authorization = ctx.get('authorization');
    let basicClientId = null;
    const basic = /^basic\s+(.+)$/i.exec(authorization);
    if (basic) {
      const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      try {
        basicClientId = decodeURIComponent((colon === -1 ? decoded : decoded.slice(0, colon)).replace(/\+/g, ' '));
      } catch {
        basicClientId = decoded.slice(0, colon);
      }
    }
    let tampered = null;
    if (tamperMode !== 'none' && ctx.status === 200 && typeof ctx.body?.id_token === 'string') {
      const mode = tamperMode;
      tamperMode = 'none';
      ctx.body = { ...ctx.body, id_token: await tamper(ctx.body.id_token, mode) };
      tampered = mode;
      log(`token response: id_token tampered (${mode})`);
    }
    lastTokenRequest = {
      grant_type: body.grant_type ?? null,
      code_present: typeof body.code === 'string' && body.code !== '',
      code_verifier_present: typeof body.code_verifier === 'string' && body.code_verifier !== '',
      code_verifier: body.code_verifier ?? null,
      redirect_uri: body.redirect_uri ?? null,
      client_id_in_body: body.client_id ?? null,
      client_secret_in_body: body.client_secret !== undefined,
      basic_auth: basic !== null,
      basic_client_id: basicClientId,
      status: ctx.status,
      error: ctx.body?.error ?? null,
      id_token_tampered: tampered,
    };
  });

  return provider;
}

// Listen first (PORT may be 0), then make the provider for the actual address.
const server = createServer();
server.on('error', (err) => {
  log('cannot listen:', err.message);
  process.exit(1);
});
server.listen(Number(portArg), '127.0.0.1', () => {
  const { port } = server.address();
  const issuer = `http://127.0.0.1:${port}`;
  const provider = makeProvider(issuer);
  server.on('request', provider.callback());
  process.stdout.write(`ready ${issuer}\n`);
});

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    server.close();
    process.exit(0);
  });
}
