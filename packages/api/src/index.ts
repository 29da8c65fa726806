export * from './app.js';
export * from './auth/auth.js';
export * from './auth/login-limiter.js';
export * from './auth/token.js';
export * from './server.js';
