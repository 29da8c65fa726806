export { API_VERSION, buildApp } from './app.js';
